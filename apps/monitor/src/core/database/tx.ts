import type Database from 'better-sqlite3';
import type { EntityManager } from 'typeorm';

declare const transactionKind: unique symbol;

/**
 * A transaction in progress, handed from the code that orchestrates it to every repository
 * method taking part. Opaque outside the repositories: the orchestration decides which writes
 * belong together, never how they are spelled. (Nest-free: the restore worker uses it too.)
 */
export interface Tx {
  readonly [transactionKind]: 'async';
}

/** A synchronous transaction in progress (the hot paths, the "only if none exists yet" rules). */
export interface SyncTx {
  readonly [transactionKind]: 'sync';
}

/** For repositories: the TypeORM manager of a `Tx`. */
export const managerOf = (tx: Tx): EntityManager => tx as unknown as EntityManager;

/** For repositories: the connection a `SyncTx` runs on. */
export const connectionOf = (tx: SyncTx): Database.Database => tx as unknown as Database.Database;

/** For core/database: a connection inside a synchronous transaction, as a `SyncTx`. */
export const syncTxOf = (db: Database.Database): SyncTx => db as unknown as SyncTx;

/** For core/database: a TypeORM manager inside a transaction, as a `Tx`. */
export const txOf = (manager: EntityManager): Tx => manager as unknown as Tx;
