import type Database from 'better-sqlite3';

declare const transactionKind: unique symbol;

/**
 * A synchronous SQLite transaction in progress (the result batch and the maintenance pass), handed
 * from the code that orchestrates it to every repository method taking part. Opaque outside the
 * repositories: the orchestration decides which writes belong together, never how they are spelled.
 */
export interface SyncTx {
  readonly [transactionKind]: 'sync';
}

/** For repositories: the connection a `SyncTx` runs on. */
export const connectionOf = (tx: SyncTx): Database.Database => tx as unknown as Database.Database;

/** For core/database: a connection inside a synchronous transaction, as a `SyncTx`. */
export const syncTxOf = (db: Database.Database): SyncTx => db as unknown as SyncTx;
