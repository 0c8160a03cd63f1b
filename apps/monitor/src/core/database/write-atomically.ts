import { ConflictError } from '@monitor/domain';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { connectionFree } from './connection-free';
import { sqliteHandle } from './sqlite-handle';

/** How long a write waits for a transaction another request holds open across an await. */
export const OPEN_TRANSACTION_WAIT_MS = 5000;

/**
 * Runs `write` as one synchronous `BEGIN IMMEDIATE` transaction on the shared connection: nothing
 * else in this process runs until it commits, and another process on the same file waits for it
 * (busy timeout) instead of reading a state it is about to change. "Only if none exists yet" rules
 * check and write inside it. A TypeORM transaction left open across an await is waited out first:
 * joining it would make this write commit or roll back with someone else's work.
 */
export async function writeAtomically<T>(
  dataSource: DataSource,
  write: (db: Database.Database) => T,
): Promise<T> {
  const db = sqliteHandle(dataSource);
  if (!(await connectionFree(db, OPEN_TRANSACTION_WAIT_MS)))
    throw new ConflictError('the database stayed busy: nothing was changed, try again');
  return db.transaction(() => write(db)).immediate();
}

/** Whether `error` is SQLite refusing a row that would break a UNIQUE index or constraint. */
export const isUniqueViolation = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
  (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
