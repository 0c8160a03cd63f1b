import * as fs from 'node:fs';
import type { DoctorCheck, DoctorReport } from '@monitor/contracts';
import { checkStorage } from '../core/database/database-checks';
import type { ClusterCheckOptions } from '../core/database/postgres-checks';

export type { DoctorCheck, DoctorReport } from '@monitor/contracts';

/** Free space below which the disk check fails. */
export const MIN_FREE_BYTES = 100 * 1024 * 1024;

export interface InstallationCheckInput {
  dataDir: string;
  /** The configured PostgreSQL URL, or null for the SQLite file in dataDir. */
  databaseUrl?: string | null;
  /** null when the configuration resolved; otherwise the one-line reason. */
  configError: string | null;
  /** `cluster.dead_after` and `instance_name` from the configuration (defaults when it failed). */
  cluster?: ClusterCheckOptions;
}

/**
 * Read-only inspection of an installation: it opens the database read-only (immutable when no
 * other process has it open, so not even a -shm file is created) and writes nothing anywhere.
 */
export async function runInstallationChecks({
  dataDir,
  databaseUrl = null,
  configError,
  cluster,
}: InstallationCheckInput): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [
    { name: 'configuration', ok: configError === null, detail: configError ?? 'valid' },
    checkDataDirectory(dataDir),
    ...(await checkStorage(dataDir, databaseUrl, cluster)),
    checkDisk(dataDir),
  ];
  return { ok: checks.every((check) => check.ok), checks };
}

/** The data directory exists, is a directory and is writable. */
export function checkDataDirectory(dataDir: string): DoctorCheck {
  const name = 'data_directory';
  try {
    if (!fs.statSync(dataDir).isDirectory())
      return { name, ok: false, detail: `${dataDir} is not a directory` };
    fs.accessSync(dataDir, fs.constants.W_OK | fs.constants.X_OK);
    return { name, ok: true, detail: `${dataDir} is writable` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not writable' : String(code);
    return { name, ok: false, detail: `${dataDir} ${reason}` };
  }
}

/** Free space on the data directory's file system. */
export function checkDisk(dataDir: string): DoctorCheck {
  const name = 'disk';
  try {
    const stats = fs.statfsSync(fs.existsSync(dataDir) ? dataDir : '.');
    const free = stats.bavail * stats.bsize;
    const detail = `${(free / 1024 / 1024).toFixed(0)} MiB free`;
    return {
      name,
      ok: free >= MIN_FREE_BYTES,
      detail: free >= MIN_FREE_BYTES ? detail : `${detail} (below 100 MiB)`,
    };
  } catch (error) {
    return { name, ok: false, detail: `cannot read free space: ${(error as Error).message}` };
  }
}
