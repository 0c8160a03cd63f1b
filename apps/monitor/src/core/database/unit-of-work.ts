import { Injectable } from '@nestjs/common';
import { ConflictError } from '@monitor/domain';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { connectionFree } from './connection-free';
import type { Dialect } from './dialect';
import { sqlClientFor, type SqlClient, type SqlExecutor } from './sql-client';
import { sqliteHandle } from './sqlite-handle';
import { syncTxOf, type SyncTx } from './tx';

export { connectionOf, type SyncTx } from './tx';
export type { SqlExecutor } from './sql-client';

/**
 * The key of PostgreSQL's transaction-level advisory lock every `atomically` writer takes first:
 * one constant, so all of them serialise with each other across connections and instances.
 */
export const ATOMIC_WRITE_LOCK = 7_150_015;

/**
 * Starts the transactions that span repositories. The repositories get the transaction's
 * executor, so their statements commit or roll back together.
 */
@Injectable()
export class UnitOfWork {
  private atomicTurn: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {}

  /** The client for statements outside a transaction. */
  get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  get dialect(): Dialect {
    return this.sql.dialect;
  }

  /** One transaction; `work` must run every statement on `tx`. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  /**
   * One transaction serialised with every other `atomically` writer (SQLite's BEGIN IMMEDIATE,
   * PostgreSQL's advisory lock taken first): "check, then write" rules hold across connections.
   */
  async atomically<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    try {
      if (this.dialect === 'sqlite') return await this.sql.transaction(work);
      // One waiter per process: writers queue here rather than each holding a pool connection
      // while it waits for the lock (a long restore would otherwise leave reads no connection).
      const turn = this.atomicTurn.then(() =>
        this.sql.transaction(async (tx) => {
          await tx.get('SELECT pg_advisory_xact_lock(?)', [ATOMIC_WRITE_LOCK]);
          return work(tx);
        }),
      );
      this.atomicTurn = turn.catch(() => undefined);
      return await turn;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY')
        throw new ConflictError('the database stayed busy: nothing was changed, try again');
      throw error;
    }
  }

  private connection(): Database.Database {
    return sqliteHandle(this.dataSource);
  }

  /** SQLite's hot path only: whether a transaction is open on the shared connection. */
  get inTransaction(): boolean {
    return this.connection().inTransaction;
  }

  /** SQLite's hot path only: resolves once no transaction is open; call right before `now`. */
  async ready(): Promise<void> {
    await connectionFree(this.connection());
  }

  /**
   * SQLite's hot path only: a synchronous transaction right now, without waiting (after `ready()`,
   * or nested in a transaction already open, which it joins).
   */
  now<T>(work: (tx: SyncTx) => T): T {
    const db = this.connection();
    return db.transaction(() => work(syncTxOf(db)))();
  }
}
