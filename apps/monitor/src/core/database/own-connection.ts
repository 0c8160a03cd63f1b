import Database from 'better-sqlite3';
import { SqliteClient, type SqlClient, type SqlExecutor } from './sql-client';

/** A read snapshot held open while a document streams out (see openReadSnapshot). */
export interface ReadSnapshot {
  tx: SqlExecutor;
  /** Ends the read transaction (and closes a connection opened for it); again: the same promise. */
  close(): Promise<void>;
}

/**
 * Starts one read-only transaction on `client` and keeps it open until `close()`: every read
 * through `tx` sees the same state while the server goes on writing (the backup document).
 * `client.transaction` ends a transaction when its work returns, so the work here waits for close.
 */
export async function openReadSnapshot(client: SqlClient, closeClient?: () => void): Promise<ReadSnapshot> {
  const { promise: finished, resolve: finish } = Promise.withResolvers<void>();
  const { promise: open, resolve: opened } = Promise.withResolvers<SqlExecutor>();
  const ended = client.transaction(
    async (tx) => {
      // The snapshot is taken by the first read (SQLite), here: everything after sees the same state.
      await tx.get('SELECT 1 AS taken FROM settings LIMIT 1');
      opened(tx);
      await finished;
    },
    { readOnly: true },
  );
  try {
    const tx = await Promise.race([
      open,
      ended.then(() => Promise.reject(new Error('the snapshot ended early'))),
    ]);
    let closing: Promise<void> | undefined;
    return {
      tx,
      // Idempotent: the stream's end and its early close may both call it.
      close: () =>
        (closing ??= (async () => {
          finish();
          try {
            await ended;
          } finally {
            closeClient?.();
          }
        })()),
    };
  } catch (error) {
    closeClient?.();
    throw error;
  }
}

/**
 * Opens the SQLite database read-only on a connection of its own and starts one read transaction
 * there, so a long read (the backup) neither waits for nor delays the server's own connection.
 */
export function openSqliteReadSnapshot(file: string, busyTimeoutMs: number): Promise<ReadSnapshot> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return openReadSnapshot(new SqliteClient(db), () => db.close());
}

/**
 * Runs `write` on a connection of its own in one IMMEDIATE transaction (the write lock is taken
 * before anything is read, so it cannot fail halfway for want of it; any error rolls everything
 * back), then copies the commit into the database file. Used off the event loop (the restore
 * worker thread). A busy database is an error with code SQLITE_BUSY.
 */
export async function writeInOwnConnection<T>(
  file: string,
  busyTimeoutMs: number,
  write: (tx: SqlExecutor) => Promise<T>,
): Promise<T> {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // Per connection: the cascades of a deleted sensor or channel depend on it.
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    const result = await new SqliteClient(db).transaction(write);
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
