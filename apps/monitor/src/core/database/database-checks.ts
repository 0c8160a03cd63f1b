import * as fs from 'node:fs';
import type { DoctorCheck } from '@monitor/contracts';
import { clusterCheck } from '@monitor/domain';
import Database from 'better-sqlite3';
import { identifyDatabase, openUnchanged } from './database-identity';
import { databasePath } from './database-path';
import { MIGRATION_NAMES } from './migrations';
import { checkPostgres, type ClusterCheckOptions } from './postgres-checks';

/** The database checks of `doctor` on the stopped installation: its own read-only connection. */
export function checkDatabase(dataDir: string): DoctorCheck[] {
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
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'`).get();
  if (!table) return migrationsCheck(null);
  return migrationsCheck(
    (db.prepare('SELECT name FROM migrations ORDER BY id').all() as { name: string }[]).map((r) => r.name),
  );
}

/** The `migrations` check from the names applied (null: no migrations table), on either backend. */
export function migrationsCheck(applied: string[] | null): DoctorCheck {
  const name = 'migrations';
  if (applied === null) return { name, ok: false, detail: `none applied; ${MIGRATION_NAMES.length} pending` };
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

/**
 * The doctor's database checks for the configured storage: the SQLite file or the PostgreSQL server
 * (with `cluster`, also the instances sharing it).
 */
export async function checkStorage(
  dataDir: string,
  databaseUrl: string | null,
  cluster?: ClusterCheckOptions,
): Promise<DoctorCheck[]> {
  if (databaseUrl) return checkPostgres(databaseUrl, migrationsCheck, cluster);
  // SQLite has one instance by design.
  return [...checkDatabase(dataDir), ...(cluster ? [clusterCheck(null)] : [])];
}
