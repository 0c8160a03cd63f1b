import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The project's own N-API addon (native/icmp/icmp.c, built by `npm install` through node-gyp):
 * ICMP datagram and raw sockets watched by a libuv poll handle on Node's loop, so nothing blocks.
 */
export type SocketKind = 'dgram' | 'raw';
export type IpFamily = 4 | 6;

/** An open socket; only the addon reads it. */
export interface IcmpHandle {
  readonly fd: number;
}

/** Errors thrown or reported by the addon: `code` is the errno name, `message` libuv's text. */
export interface IcmpError extends Error {
  code?: string;
  syscall?: string;
}

/** Called on the loop for every datagram read (error null), or once for a socket error. */
export type IcmpListener = (error: IcmpError | null, data: Buffer | null, address: string | null) => void;

export interface IcmpAddon {
  /** Throws an IcmpError (code EACCES, EPERM, ...) when the socket cannot be opened. */
  open(kind: SocketKind, family: IpFamily, onMessage: IcmpListener): IcmpHandle;
  /** Raw sockets: only echo replies carrying `id` are queued. False (no-op) for datagram sockets. */
  filterEchoReplies(handle: IcmpHandle, id: number): boolean;
  /** Sends one datagram to a numeric address; throws an IcmpError (ENETUNREACH, ...). */
  send(handle: IcmpHandle, bytes: Uint8Array, address: string): number;
  /** Idempotent. */
  close(handle: IcmpHandle): void;
  hasRawSocketCapability(): boolean;
  /** `prctl(PR_SET_KEEPCAPS)` on the calling (JS) thread: true before a uid change, false to undo. */
  keepRawSocketCapability(keep?: boolean): void;
  /** After the uid change: permitted = effective = {CAP_NET_RAW}; on failure drops every capability and throws. */
  restoreRawSocketCapability(): void;
}

/** Absolute path of the built addon; overrides the search. */
export const ICMP_ADDON_ENV = 'MONITOR_ICMP_ADDON';
export const ICMP_ADDON_RELATIVE_PATH = join('native', 'icmp', 'build', 'Release', 'icmp.node');

/**
 * Where the addon may be: under the working directory, and under every ancestor of this file's
 * directory (libs/probes/src/ping from source and jest, dist/apps/monitor from the bundle, whose
 * webpack configuration keeps the real `__dirname`).
 */
export function addonCandidates(cwd: string = process.cwd(), from: string = __dirname): string[] {
  const candidates = [resolve(cwd, ICMP_ADDON_RELATIVE_PATH)];
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    candidates.push(join(dir, ICMP_ADDON_RELATIVE_PATH));
    if (dirname(dir) === dir) break;
  }
  return [...new Set(candidates)];
}

/** Loads the addon, or says in one phrase why not. `process.dlopen` keeps webpack out of the way. */
export function loadIcmpAddon(
  env: NodeJS.ProcessEnv = process.env,
  candidates = addonCandidates(),
): IcmpAddon | string {
  const override = env[ICMP_ADDON_ENV];
  const path = override ? resolve(override) : candidates.find((candidate) => existsSync(candidate));
  if (path === undefined) {
    return `ICMP addon not built: ${ICMP_ADDON_RELATIVE_PATH} not found; run npm run install:native`;
  }
  try {
    const module = { exports: {} as unknown };
    process.dlopen(module, path);
    return module.exports as IcmpAddon;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return `ICMP addon ${path} failed to load: ${reason}`;
  }
}

let cached: IcmpAddon | string | undefined;

/** The addon of this process (loaded once), or why it could not be loaded. */
export function icmpAddon(): IcmpAddon | string {
  cached ??= loadIcmpAddon();
  return cached;
}
