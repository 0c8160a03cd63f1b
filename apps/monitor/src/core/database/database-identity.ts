import * as fs from 'node:fs';
import Database from 'better-sqlite3';
import { MIGRATION_NAMES } from './migrations';

/** `PRAGMA application_id` of every monitor database: "moni" in ASCII. */
export const APPLICATION_ID = 0x6d6f6e69;

/** Tables named in the refusal; the rest are counted. */
const TABLES_NAMED = 5;

export type DatabaseIdentity =
  /** No file, an empty file, or a database without any table: ours to create. */
  | { kind: 'new' }
  /** Marked with our application_id. */
  | { kind: 'ours' }
  /** Ours from before the mark (application_id 0, our migrations applied): to be marked. */
  | { kind: 'unmarked' }
  | { kind: 'foreign'; reason: string };

/** Tells whether an open database is one of ours; reads only. */
export function identifyDatabase(db: Database.Database): DatabaseIdentity {
  const applicationId = Number(db.pragma('application_id', { simple: true }));
  if (applicationId === APPLICATION_ID) return { kind: 'ours' };
  const tables = (
    db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`,
      )
      .all() as { name: string }[]
  ).map((row) => row.name);
  if (applicationId === 0 && tables.length === 0) return { kind: 'new' };
  const applied = applicationId === 0 && tables.includes('migrations') ? migrationNames(db) : null;
  // Only an empty migrations table: another process of ours is creating it (the table comes
  // before the first migration's transaction commits).
  if (applied?.length === 0 && tables.length === 1) return { kind: 'new' };
  if (applied && applied.length > 0 && applied.every((name) => MIGRATION_NAMES.includes(name as string)))
    return { kind: 'unmarked' };
  const named = tables.slice(0, TABLES_NAMED).join(', ');
  const more = tables.length > TABLES_NAMED ? ` and ${tables.length - TABLES_NAMED} more` : '';
  const hex = `0x${(applicationId >>> 0).toString(16).padStart(8, '0')}`;
  return {
    kind: 'foreign',
    reason: `application_id ${applicationId} (${hex}), tables ${tables.length ? named + more : 'none'}`,
  };
}

/** The names in a `migrations` table, or null when it has another shape (someone else's). */
function migrationNames(db: Database.Database): unknown[] | null {
  try {
    return (db.prepare('SELECT name FROM migrations').all() as { name: unknown }[]).map((r) => r.name);
  } catch {
    return null;
  }
}

/** The 100-byte header of an SQLite file, or null when the file is not one (left to SQLite to refuse). */
function readHeader(file: string): Buffer | null {
  const header = Buffer.alloc(100);
  const fd = fs.openSync(file, 'r');
  try {
    if (fs.readSync(fd, header, 0, 100, 0) < 100) return null;
  } finally {
    fs.closeSync(fd);
  }
  return header.subarray(0, 16).toString('latin1') === 'SQLite format 3\0' ? header : null;
}

/**
 * Opens a database file without changing it: through its live WAL when a -wal file exists;
 * plainly read-only for a rollback-journal file (SQLite then creates nothing); otherwise as
 * immutable (a URI filename, see sqlite-uri.ts), so SQLite creates no -wal/-shm beside it.
 */
export function openUnchanged(file: string): Database.Database {
  if (fs.existsSync(`${file}-wal`)) return new Database(file, { readonly: true, fileMustExist: true });
  const header = readHeader(file);
  // Byte 18 is the file format write version: 1 rollback journal, 2 WAL.
  if (header && header[18] === 1) return new Database(file, { readonly: true, fileMustExist: true });
  return new Database(`file:${encodeURI(file)}?immutable=1`, { readonly: true, fileMustExist: true });
}

/**
 * Identifies the database file before anything writes to it. A missing or empty file is new; a
 * file that is not SQLite at all is left for SQLite to refuse as before.
 */
export function identifyDatabaseFile(file: string): DatabaseIdentity | { kind: 'not-sqlite' } {
  if (!fs.existsSync(file) || fs.statSync(file).size === 0) return { kind: 'new' };
  const header = readHeader(file);
  if (!header) return { kind: 'not-sqlite' };
  // The header holds the application id (offset 68); once ours, a -wal file cannot unmark it.
  if (header.readInt32BE(68) === APPLICATION_ID) return { kind: 'ours' };
  const db = openUnchanged(file);
  try {
    return identifyDatabase(db);
  } finally {
    db.close();
  }
}

/** The one line an operator reads when the file is someone else's. */
export const foreignDatabaseText = (file: string, reason: string): string =>
  `${file} is not a monitor database (${reason}); refusing to use it: move it away or point --data-dir elsewhere`;
