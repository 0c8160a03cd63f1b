import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { DataSource, EntityManager } from 'typeorm';
import { connectionFree } from './connection-free';
import { sqliteHandle } from './sqlite-handle';
import { writeAtomically } from './write-atomically';

declare const transactionKind: unique symbol;

/**
 * A transaction in progress, handed from the service that orchestrates it to every repository
 * method taking part. Opaque outside the repositories: a service decides which writes belong
 * together, never how they are spelled.
 */
export interface Tx {
  readonly [transactionKind]: 'async';
}

/** A synchronous transaction in progress (the hot paths and the "only if none exists yet" rules). */
export interface SyncTx {
  readonly [transactionKind]: 'sync';
}

/** For repositories: the TypeORM manager of a `Tx`. */
export const managerOf = (tx: Tx): EntityManager => tx as unknown as EntityManager;

/** For repositories: the connection a `SyncTx` runs on. */
export const connectionOf = (tx: SyncTx): Database.Database => tx as unknown as Database.Database;

/**
 * Starts the transactions that span repositories. Each flavour hands the repositories the same
 * connection the transaction runs on, so their writes commit or roll back together.
 */
@Injectable()
export class UnitOfWork {
  private db?: Database.Database;

  constructor(private readonly dataSource: DataSource) {}

  private connection(): Database.Database {
    return (this.db ??= sqliteHandle(this.dataSource));
  }

  /** An async transaction (TypeORM's): repositories may await inside it. */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(manager as unknown as Tx));
  }

  /**
   * One synchronous `BEGIN IMMEDIATE` transaction, after waiting out one held open across an
   * await (see writeAtomically): checks and writes inside it cannot interleave with anyone.
   */
  atomically<T>(work: (tx: SyncTx) => T): Promise<T> {
    return writeAtomically(this.dataSource, (db) => work(db as unknown as SyncTx));
  }

  /** Whether a transaction is open on the shared connection (someone else's, when asked outside one). */
  get inTransaction(): boolean {
    return this.connection().inTransaction;
  }

  /** Resolves once no transaction is open; call right before `now`, with no await between. */
  async ready(): Promise<void> {
    await connectionFree(this.connection());
  }

  /**
   * A synchronous transaction right now, without waiting: for hot paths that called `ready()`
   * just before, and for writes nested in a transaction already open (they join it).
   */
  now<T>(work: (tx: SyncTx) => T): T {
    const db = this.connection();
    return db.transaction(() => work(db as unknown as SyncTx))();
  }
}
