import * as fs from 'node:fs';
import type { DoctorCheck, DoctorReport } from '@monitor/contracts';
import Database from 'better-sqlite3';
import { identifyDatabase, openUnchanged } from '../core/database/database-identity';
import { databasePath } from '../core/database/database-path';
import { MIGRATION_NAMES } from '../core/database/migrations';

export type { DoctorCheck, DoctorReport } from '@monitor/contracts';

/** Free space below which the disk check fails. */
export const MIN_FREE_BYTES = 100 * 1024 * 1024;

export interface InstallationCheckInput {
  dataDir: string;
  /** null when the configuration resolved; otherwise the one-line reason. */
  configError: string | null;
}

/**
 * Read-only inspection of an installation: it opens the database read-only (immutable when no
 * other process has it open, so not even a -shm file is created) and writes nothing anywhere.
 */
export function runInstallationChecks({ dataDir, configError }: InstallationCheckInput): DoctorReport {
  const checks: DoctorCheck[] = [
    { name: 'configuration', ok: configError === null, detail: configError ?? 'valid' },
    checkDataDirectory(dataDir),
    ...checkDatabase(dataDir),
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

function checkDatabase(dataDir: string): DoctorCheck[] {
  const file = databasePath(dataDir);
  if (!fs.existsSync(file)) {
    const detail = `${file} does not exist (the service creates it on first start)`;
    return [
      { name: 'database', ok: false, detail },
      { name: 'migrations', ok: false, detail: 'no database to inspect' },
    ];
  }
  let db: Database.Database | undefined;
  try {
    db = openUnchanged(file);
    return inspectDatabase(db, file);
  } catch (error) {
    const detail = `${file} cannot be opened: ${(error as Error).message}`;
    return [
      { name: 'database', ok: false, detail },
      { name: 'migrations', ok: false, detail: 'no database to inspect' },
    ];
  } finally {
    db?.close();
  }
}

/**
 * The `database` (quick_check) and `migrations` checks over an open connection: the CLI's own
 * read-only one, or the running server's. Both only read.
 */
export function inspectDatabase(db: Database.Database, file: string): DoctorCheck[] {
  const identity = identifyDatabase(db);
  if (identity.kind === 'foreign') {
    return [
      { name: 'database', ok: false, detail: `${file} is not a monitor database (${identity.reason})` },
      { name: 'migrations', ok: false, detail: 'not inspected: the database belongs to another application' },
    ];
  }
  const integrity = db.pragma('quick_check', { simple: true });
  const unmarked =
    identity.kind === 'unmarked' ? ' (not yet marked as a monitor database; the next start marks it)' : '';
  const database: DoctorCheck =
    integrity === 'ok'
      ? { name: 'database', ok: true, detail: `${file} opens and passes quick_check${unmarked}` }
      : { name: 'database', ok: false, detail: `quick_check reports: ${String(integrity)}` };
  return [database, checkMigrations(db)];
}

function checkMigrations(db: Database.Database): DoctorCheck {
  const name = 'migrations';
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'`).get();
  if (!table) return { name, ok: false, detail: `none applied; ${MIGRATION_NAMES.length} pending` };
  const applied = (db.prepare('SELECT name FROM migrations ORDER BY id').all() as { name: string }[]).map(
    (r) => r.name,
  );
  const unknown = applied.filter((migration) => !MIGRATION_NAMES.includes(migration));
  const pending = MIGRATION_NAMES.filter((migration) => !applied.includes(migration));
  if (unknown.length > 0) {
    return {
      name,
      ok: false,
      detail: `database has migrations this build does not know: ${unknown.join(', ')}`,
    };
  }
  if (pending.length > 0)
    return { name, ok: false, detail: `${pending.length} pending: ${pending.join(', ')}` };
  return { name, ok: true, detail: `${applied.length} applied, none pending` };
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
