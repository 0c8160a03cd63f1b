import { isIP } from 'node:net';

/** What decides whether a host may run first-run setup. */
export interface SetupHostPolicy {
  /** The configured base_url ('' when none). */
  baseUrl: string;
  allowedHosts: readonly string[];
}

/** The host part of a Host header value: no port, IPv6 without its brackets, lower case. */
export function hostOf(header: string): string {
  const text = header.trim().toLowerCase();
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(text);
  if (bracketed) return bracketed[1]!;
  const colon = text.indexOf(':');
  // More than one colon without brackets is not a name with a port (an IPv6 address): keep it whole.
  const host = colon >= 0 && text.indexOf(':', colon + 1) < 0 ? text.slice(0, colon) : text;
  return host.replace(/\.$/, '');
}

/**
 * The hosts a request names: its Host header and every X-Forwarded-Host value. A proxy sets both;
 * a client may add an X-Forwarded-Host of its own, which can only make the answer a refusal.
 */
export function namedHosts(headers: Record<string, string | string[] | undefined>): string[] {
  const host = headers.host;
  const forwarded = headers['x-forwarded-host'];
  const values = [
    ...(typeof host === 'string' ? [host] : ['']),
    ...(forwarded === undefined ? [] : [forwarded].flat().flatMap((v) => v.split(','))),
  ];
  return values.map(hostOf);
}

/** Whether one host may run setup: an IP address, localhost, base_url's host or an allowed name. */
export function hostAllowed(host: string, policy: SetupHostPolicy): boolean {
  if (host === '') return false;
  if (isIP(host) !== 0 || host === 'localhost') return true;
  if (policy.allowedHosts.includes(host)) return true;
  if (!policy.baseUrl) return false;
  try {
    return hostOf(new URL(policy.baseUrl).host) === host;
  } catch {
    return false;
  }
}

/**
 * Null when setup may run for a request naming these hosts; else the refusal, which says how to
 * go on. A DNS-rebinding page on another name must not create the first administrator.
 */
export function setupHostRefusal(hosts: readonly string[], policy: SetupHostPolicy): string | null {
  const refused = hosts.find((host) => !hostAllowed(host, policy));
  if (refused === undefined) return null;
  const name =
    refused === '' ? 'a request without a Host header' : `host ${JSON.stringify(refused.slice(0, 100))}`;
  return (
    `first-run setup is not allowed from ${name}: open the dashboard through localhost or an IP ` +
    'address of this server, or add the host name to allowed_hosts (MONITOR_ALLOWED_HOSTS) or set base_url to an address with it'
  );
}
