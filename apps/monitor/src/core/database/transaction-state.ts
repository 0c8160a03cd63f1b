import type Database from 'better-sqlite3';
import type { DataSource, ObjectLiteral } from 'typeorm';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver';
import { BetterSqlite3QueryRunner } from 'typeorm/driver/better-sqlite3/BetterSqlite3QueryRunner';
import type { StorageHealth } from './storage-health';

const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

/**
 * TypeORM's one query runner for better-sqlite3, kept in step with SQLite's real transaction.
 *
 * When a statement or COMMIT fails with SQLITE_FULL or an I/O error, SQLite rolls the transaction
 * back by itself; TypeORM's own ROLLBACK then fails and TypeORM went on believing a transaction
 * was open, so every later "transaction" became a SAVEPOINT inside one that never committed (a
 * write lock held forever, acknowledged writes lost on close). After a failed rollback this runner
 * asks the connection (`inTransaction`) and resets its state to match. It also reports every
 * storage failure and every committed write to StorageHealth.
 */
export class TransactionStateQueryRunner extends BetterSqlite3QueryRunner {
  constructor(
    driver: BetterSqlite3Driver,
    private readonly health: StorageHealth,
  ) {
    super(driver);
  }

  private get sqlite(): Database.Database {
    return this.driver.databaseConnection as Database.Database;
  }

  override async query(
    query: string,
    parameters?: unknown[] | ObjectLiteral,
    structured?: boolean,
  ): ReturnType<BetterSqlite3QueryRunner['query']> {
    try {
      const result = (await super.query(query, parameters as unknown[], structured)) as unknown;
      if (!this.isTransactionActive && WRITE.test(query)) this.health.reportSuccess();
      return result as Awaited<ReturnType<BetterSqlite3QueryRunner['query']>>;
    } catch (error) {
      this.health.reportFailure(error);
      throw error;
    }
  }

  override async commitTransaction(): Promise<void> {
    await super.commitTransaction();
    if (!this.isTransactionActive) this.health.reportSuccess();
  }

  override async rollbackTransaction(): Promise<void> {
    // Without a transaction TypeORM's own error (TransactionNotStartedError) is the right answer.
    if (!this.isTransactionActive) return super.rollbackTransaction();
    const outermost = this.transactionDepth <= 1;
    try {
      await super.rollbackTransaction();
    } catch (error) {
      if (!this.realign(outermost)) throw error;
    }
  }

  /** After a failed ROLLBACK: makes TypeORM's state match SQLite's; true when nothing is left open. */
  private realign(outermost: boolean): boolean {
    const db = this.sqlite;
    if (!outermost) {
      // ROLLBACK TO a savepoint failed: the whole transaction is gone, or the outer level decides.
      if (!db.inTransaction) this.reset();
      else this.transactionDepth -= 1;
      return !db.inTransaction;
    }
    if (db.inTransaction) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // Still open: the next BEGIN fails loudly instead of nesting silently inside it.
      }
    }
    this.reset();
    return !db.inTransaction;
  }

  private reset(): void {
    this.transactionDepth = 0;
    this.isTransactionActive = false;
  }
}

/** Makes the DataSource use TransactionStateQueryRunner (call before `initialize`). */
export function keepTransactionStateInStep(dataSource: DataSource, health: StorageHealth): void {
  const driver = dataSource.driver as BetterSqlite3Driver;
  driver.createQueryRunner = () => (driver.queryRunner ??= new TransactionStateQueryRunner(driver, health));
}
