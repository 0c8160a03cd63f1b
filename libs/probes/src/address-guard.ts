import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

/**
 * The addresses a caller below administrator may not make a probe reach: link-local ranges
 * (where cloud metadata services live) and the metadata services' other addresses and names.
 */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.internal',
  'instance-data',
  'instance-data.ec2.internal',
]);
/** Metadata services outside the link-local ranges: Alibaba Cloud, and AWS over IPv6 (fd00:ec2::254). */
const METADATA_ADDRESSES = new Set(['100.100.100.200']);
const METADATA_V6 = new Set(['fd00:ec2:0:0:0:0:0:254']);

/** What a refused address is called in messages; the same wording everywhere. */
export const BLOCKED_ADDRESS_MESSAGE = 'address not allowed (link-local or cloud metadata)';
/** The error code of a connection the guard refused (networkErrorMessage names it). */
export const BLOCKED_ADDRESS_CODE = 'ERR_ADDRESS_BLOCKED';

export class BlockedAddressError extends Error {
  readonly code = BLOCKED_ADDRESS_CODE;
  constructor(readonly host: string) {
    super(BLOCKED_ADDRESS_MESSAGE);
  }
}

/** Eight 16-bit groups of an IPv6 literal, or null. An embedded IPv4 tail counts as two groups. */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const bytes = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((bytes[0] << 8) | bytes[1]).toString(16)}:${((bytes[2] << 8) | bytes[3]).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined): number[] =>
    part ? part.split(':').map((group) => parseInt(group, 16)) : [];
  const front = parse(head);
  const back = parse(tail);
  const fill = tail === undefined ? 0 : 8 - front.length - back.length;
  const groups = [...front, ...new Array<number>(Math.max(0, fill)).fill(0), ...back];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : null;
}

function ipv4Blocked(address: string): boolean {
  return address.startsWith('169.254.') || METADATA_ADDRESSES.has(address);
}

/** True for an IP literal in 169.254.0.0/16, fe80::/10 or a metadata address (IPv4-mapped forms too). */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return ipv4Blocked(address);
  if (family !== 6) return false;
  const groups = ipv6Groups(address);
  if (!groups) return false;
  if ((groups[0] & 0xffc0) === 0xfe80) return true;
  if (METADATA_V6.has(groups.map((g) => g.toString(16)).join(':'))) return true;
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) forms reach the IPv4 address.
  if (groups.slice(0, 5).every((g) => g === 0) && (groups[5] === 0xffff || groups[5] === 0)) {
    const v4 = [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
    return ipv4Blocked(v4);
  }
  return false;
}

/** A host name (or literal) the guard refuses without looking it up. */
export function isBlockedName(host: string): boolean {
  const name = host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[|\]$/g, '');
  return METADATA_HOSTS.has(name) || isBlockedAddress(name);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A drop-in for dns.lookup (the `lookup` option of net.connect, tls.connect and undici's
 * connector) that refuses a name when any of its addresses is blocked, so the connection goes
 * to an address that was checked: there is no second lookup an attacker's DNS could answer
 * differently.
 */
export const guardedLookup = guardedLookupVia(dnsLookup);

/** Resolves every address of a name; the system's dns.lookup outside tests. */
export type AllAddressesLookup = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** `guardedLookup` over another resolver (tests: names that resolve to link-local addresses). */
export function guardedLookupVia(lookup: AllAddressesLookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void =>
    guarded(lookup, hostname, options, callback);
}

function guarded(
  lookup: AllAddressesLookup,
  hostname: string,
  options: LookupOptions,
  callback: LookupCallback,
): void {
  if (isBlockedName(hostname)) {
    callback(new BlockedAddressError(hostname), '', 0);
    return;
  }
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    if (addresses.some((entry) => isBlockedAddress(entry.address)))
      return callback(new BlockedAddressError(hostname), '', 0);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first)
      return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    callback(null, first.address, first.family);
  });
}

/** The address to connect to: a literal as is, a name through `guardedLookup`. Throws when blocked. */
export function resolveGuarded(
  host: string,
  lookup = guardedLookup,
): Promise<{ address: string; family: 4 | 6 }> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isBlockedName(bare)) return Promise.reject(new BlockedAddressError(host));
  const literal = isIP(bare);
  if (literal === 4 || literal === 6) return Promise.resolve({ address: bare, family: literal });
  return new Promise((resolve, reject) =>
    lookup(bare, {}, (error, address, family) =>
      error ? reject(error) : resolve({ address: address as string, family: family === 6 ? 6 : 4 }),
    ),
  );
}

/**
 * Why a caller below administrator may not probe `host`: null when allowed. Checks the name, a
 * literal, and every address the name resolves to; a name that does not resolve is allowed here
 * (the probe then fails with "cannot resolve host").
 */
export async function blockedHostProblem(host: string, lookup = guardedLookup): Promise<string | null> {
  try {
    await resolveGuarded(host, lookup);
    return null;
  } catch (error) {
    return error instanceof BlockedAddressError ? `${host}: ${BLOCKED_ADDRESS_MESSAGE}` : null;
  }
}
