import Database from 'better-sqlite3';
import { syncTxOf, type SyncTx } from './tx';

/** A read snapshot on a connection of its own (see openReadSnapshot). */
export interface ReadSnapshot {
  tx: SyncTx;
  close(): void;
}

/**
 * Opens the database read-only on a connection of its own and starts one read transaction: every
 * read through `tx` sees the same state while the server goes on writing (the backup document).
 */
export function openReadSnapshot(file: string, busyTimeoutMs: number): ReadSnapshot {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.exec('BEGIN');
    // The snapshot is taken by the first read, here: everything after sees the same state.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    db.close();
    throw error;
  }
  return { tx: syncTxOf(db), close: () => db.close() };
}

/**
 * Runs `write` on a connection of its own in one IMMEDIATE transaction (the write lock is taken
 * before anything is read, so it cannot fail halfway for want of it; any error rolls everything
 * back), then copies the commit into the database file. Used off the event loop (the restore
 * worker thread). A busy database is an error with code SQLITE_BUSY.
 */
export function writeInOwnConnection<T>(file: string, busyTimeoutMs: number, write: (tx: SyncTx) => T): T {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // Per connection: the cascades of a deleted sensor or channel depend on it.
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    const result = db.transaction(() => write(syncTxOf(db))).immediate();
    // Copy the large commit into the database file here, off the event loop, rather than in the
    // server's next small write.
    db.pragma('wal_checkpoint(PASSIVE)');
    return result;
  } finally {
    db.close();
  }
}

/** Whether `error` is SQLite saying another connection held the lock past the wait. */
export const isBusy = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === 'SQLITE_BUSY';
