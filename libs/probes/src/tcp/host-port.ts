import { isIP } from 'node:net';

export interface HostPort {
  host: string;
  port: number;
}

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/** A host name or an IP address (IPv6 without brackets). */
export function isHost(host: string): boolean {
  return isIP(host) !== 0 || HOST_NAME.test(host);
}

function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/** Loose shape check used at run time; `validate` adds `isHost`. */
const PLAUSIBLE_HOST = /^[^\s/:@[\]]+$/;

/**
 * `host:port`, `[::1]:port`; with `defaultPort` also a bare `host`, `[::1]` or `::1`. Null when
 * malformed. The host comes back without brackets.
 */
export function parseHostPort(text: string, defaultPort?: number): HostPort | null {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    if (isIP(bracketed[1]) !== 6) return null;
    if (bracketed[2] === undefined)
      return defaultPort === undefined ? null : { host: bracketed[1], port: defaultPort };
    const port = parsePort(bracketed[2]);
    return port === null ? null : { host: bracketed[1], port };
  }
  if (isIP(text) === 6) return defaultPort === undefined ? null : { host: text, port: defaultPort };
  const colon = text.lastIndexOf(':');
  if (colon === -1) {
    return defaultPort !== undefined && PLAUSIBLE_HOST.test(text) ? { host: text, port: defaultPort } : null;
  }
  const host = text.slice(0, colon);
  const port = parsePort(text.slice(colon + 1));
  return port !== null && PLAUSIBLE_HOST.test(host) ? { host, port } : null;
}
