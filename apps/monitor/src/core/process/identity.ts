import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CapabilityOutcome, keepRawSocketCapability } from '@monitor/probes';
import type { MonitorConfig } from '../config/monitor-config';
import type { AppLogger } from '../logging/logger';
import { databasePath } from '../database/database-path';
import { makePrivateDirectory } from '../database/private-files';
import { currentUidText, describeErrno, StartupError } from './startup-error';

const CAP_NET_RAW = 13;

/** What the drop needs from the operating system; the real one is `process` and `fs`. */
export interface IdentitySystem {
  getuid(): number;
  geteuid(): number;
  getegid(): number;
  umask(mask: number): number;
  setgroups(groups: number[]): void;
  setgid(id: number): void;
  setuid(id: number): void;
  mkdir(dir: string): void;
  lchownTree(dir: string, uid: number, gid: number): void;
  effectiveCapabilities(): bigint | null;
  /** Runs the uid/gid change so that CAP_NET_RAW survives it when possible. */
  keepingRawSocket(drop: () => void): CapabilityOutcome;
}

/**
 * When started as root: umask from UMASK, create the data directory, hand it (not following
 * symlinks) to PUID:PGID, then setgroups/setgid/setuid, verify, and refuse to continue if any step
 * did not take. PUID=0 keeps root. When not root, the settings are ignored and one line says so.
 */
export function dropIdentity(
  config: MonitorConfig,
  logger: AppLogger,
  system: IdentitySystem = realSystem,
): void {
  const { puid, pgid, umask } = config.identity;
  if (system.getuid() !== 0) {
    logger.info({ uid: system.getuid() }, 'not started as root: PUID, PGID and UMASK are ignored');
    return;
  }
  system.umask(umask);
  try {
    system.mkdir(config.data_dir);
  } catch (error) {
    throw new StartupError(
      `cannot open database ${databasePath(config.data_dir)}${currentUidText()}: cannot create the data directory: ${describeErrno(error)}`,
    );
  }
  if (puid === 0) {
    logger.warn({ uid: 0, gid: 0 }, 'PUID=0: running as root for the whole run');
    return;
  }
  const hadRawSocket = hasCapability(system.effectiveCapabilities(), CAP_NET_RAW);
  let capability: CapabilityOutcome;
  try {
    system.lchownTree(config.data_dir, puid, pgid);
    capability = system.keepingRawSocket(() => {
      system.setgroups([pgid]);
      system.setgid(pgid);
      system.setuid(puid);
    });
  } catch (error) {
    throw new StartupError(`cannot switch to uid ${puid} gid ${pgid}: ${describeErrno(error)}`);
  }
  if (system.geteuid() !== puid || system.getegid() !== pgid) {
    throw new StartupError(
      `identity change did not take: running as uid ${system.geteuid()} gid ${system.getegid()}, expected ${puid}:${pgid}`,
    );
  }
  if (canRegainRoot(system)) {
    throw new StartupError('identity change is not permanent: root could be regained');
  }
  logger.info({ uid: puid, gid: pgid, umask: umask.toString(8).padStart(3, '0') }, 'dropped root privileges');
  if (hadRawSocket && !(capability.kept && hasCapability(system.effectiveCapabilities(), CAP_NET_RAW))) {
    logger.warn(
      {
        capability: 'CAP_NET_RAW',
        reason: capability.kept ? 'not effective after the drop' : capability.reason,
      },
      'raw-socket capability lost in the identity drop: ping uses unprivileged datagram sockets only',
    );
  } else if (hadRawSocket) {
    logger.info({ capability: 'CAP_NET_RAW' }, 'kept the raw-socket capability for ping');
  }
}

function canRegainRoot(system: IdentitySystem): boolean {
  try {
    system.setuid(0);
    return true;
  } catch {
    return false;
  }
}

const hasCapability = (mask: bigint | null, bit: number): boolean =>
  mask !== null && (mask & (1n << BigInt(bit))) !== 0n;

function lchownTree(dir: string, uid: number, gid: number): void {
  fs.lchownSync(dir, uid, gid);
  if (!fs.lstatSync(dir).isDirectory()) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) lchownTree(child, uid, gid);
    else fs.lchownSync(child, uid, gid);
  }
}

function readEffectiveCapabilities(): bigint | null {
  try {
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const match = /^CapEff:\s*([0-9a-f]+)$/m.exec(status);
    return match ? BigInt(`0x${match[1]}`) : null;
  } catch {
    return null;
  }
}

const realSystem: IdentitySystem = {
  getuid: () => process.getuid?.() ?? -1,
  geteuid: () => process.geteuid?.() ?? -1,
  getegid: () => process.getegid?.() ?? -1,
  umask: (mask) => process.umask(mask),
  setgroups: (groups) => process.setgroups?.(groups),
  setgid: (id) => process.setgid?.(id),
  setuid: (id) => process.setuid?.(id),
  mkdir: makePrivateDirectory,
  lchownTree,
  effectiveCapabilities: readEffectiveCapabilities,
  keepingRawSocket: (drop) => keepRawSocketCapability(drop),
};
