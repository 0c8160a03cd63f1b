import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { currentUidText, describeErrno, StartupError } from '../process/startup-error';
import { databasePath } from './database-path';
import { noSpaceText } from './disk-space';

/** Beside monitor.db; a SQLite file of its own, so its lock never touches the database's. */
export const LOCK_FILE = 'monitor.lock';

/** Waits for a holder's or reader's short commit, never for the holder itself. */
const SHORT_WAIT_MS = 2000;

export interface DataDirectoryLock {
  readonly file: string;
  /** Lets the next process in (the OS does the same when this one dies, kill -9 included). */
  release(): void;
}

export interface LockHolder {
  pid: number;
  startedAt: number;
}

/** The one line a second process on the same SQLite data directory stops with. */
export function alreadyRunningText(dataDir: string, holder: LockHolder | null): string {
  const who = holder
    ? `pid ${holder.pid}, since ${new Date(holder.startedAt).toISOString()}`
    : 'it is starting';
  return `another monitor is already running on data directory ${dataDir} (${who}): SQLite allows one process; use PostgreSQL (database_url) to run several instances`;
}

const isBusy = (error: unknown): boolean => (error as { code?: unknown }).code === 'SQLITE_BUSY';

/**
 * Holds `<data-dir>/monitor.lock` for the life of the process: a write transaction left open there
 * (SQLite's RESERVED lock, which one process at a time can have) while the committed row says who
 * holds it, so a refused process can still read it. The directory must exist.
 */
export function lockDataDirectory(
  dataDir: string,
  holder: LockHolder = { pid: process.pid, startedAt: Date.now() },
): DataDirectoryLock {
  const dir = path.resolve(dataDir);
  const file = path.join(dir, LOCK_FILE);
  let db: Database.Database | undefined;
  const refuse = (): never => {
    const seen = db ? readHolder(db) : null;
    db?.close();
    // Our own row, read before the winner of a close race committed its own.
    const mine = seen?.pid === holder.pid && seen.startedAt === holder.startedAt;
    throw new StartupError(alreadyRunningText(dir, mine ? null : seen));
  };
  try {
    if (fs.existsSync(file)) fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    db = new Database(file, { timeout: 0 });
    if (!tryBegin(db)) refuse();
    db.pragma(`busy_timeout = ${SHORT_WAIT_MS}`);
    db.exec(
      'CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, started_at INTEGER NOT NULL)',
    );
    db.prepare('INSERT OR REPLACE INTO holder (id, pid, started_at) VALUES (1, ?, ?)').run(
      holder.pid,
      holder.startedAt,
    );
    db.exec('COMMIT');
    // Between the commit and this begin another process may have got in: then it is the holder.
    db.pragma('busy_timeout = 0');
    if (!tryBegin(db)) refuse();
  } catch (error) {
    if (error instanceof StartupError) throw error;
    db?.close();
    // Taking the lock writes a row: on a full disk this is the first thing to fail.
    const noSpace = noSpaceText(databasePath(dir), dir, error);
    if (noSpace) throw new StartupError(noSpace);
    const code = (error as { code?: unknown }).code;
    const reason =
      typeof code === 'string' && code.startsWith('SQLITE_')
        ? (error as Error).message
        : describeErrno(error);
    throw new StartupError(`cannot lock data directory ${dir} (${file}${currentUidText()}): ${reason}`);
  }
  const open = db;
  return {
    file,
    release: () => {
      if (open.open) open.close();
    },
  };
}

function tryBegin(db: Database.Database): boolean {
  try {
    db.exec('BEGIN IMMEDIATE');
    return true;
  } catch (error) {
    if (isBusy(error)) return false;
    throw error;
  }
}

/** Who holds the lock, when it has said so yet; reading needs no lock the holder keeps. */
function readHolder(db: Database.Database): LockHolder | null {
  try {
    db.pragma(`busy_timeout = ${SHORT_WAIT_MS}`);
    const row = db.prepare('SELECT pid, started_at FROM holder WHERE id = 1').get() as
      { pid: number; started_at: number } | undefined;
    return row ? { pid: row.pid, startedAt: row.started_at } : null;
  } catch {
    return null;
  }
}
