import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { connectionFree } from './connection-free';
import { sqliteHandle } from './sqlite-handle';
import { syncTxOf, txOf, type SyncTx, type Tx } from './tx';
import { writeAtomically } from './write-atomically';

export { connectionOf, managerOf, type SyncTx, type Tx } from './tx';

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
    return this.dataSource.transaction((manager) => work(txOf(manager)));
  }

  /**
   * One synchronous `BEGIN IMMEDIATE` transaction, after waiting out one held open across an
   * await (see writeAtomically): checks and writes inside it cannot interleave with anyone.
   */
  atomically<T>(work: (tx: SyncTx) => T): Promise<T> {
    return writeAtomically(this.dataSource, (db) => work(syncTxOf(db)));
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
    return db.transaction(() => work(syncTxOf(db)))();
  }
}
