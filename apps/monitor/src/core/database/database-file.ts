import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BUSY_TIMEOUT_MS } from './open-database';
import { createPrivateFile } from './private-files';
import { sqliteHandle } from './sqlite-handle';

/** The database as a file: copies of it, and how long its shared connection waits for a lock. */
@Injectable()
export class DatabaseFile {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A consistent copy at a new file `target`, 0600 like the database (it holds the same secrets),
   * through SQLite's online backup (the server goes on meanwhile).
   */
  async copyTo(target: string): Promise<void> {
    createPrivateFile(target);
    await sqliteHandle(this.dataSource).backup(target);
  }

  /** While another connection holds the write lock for long (a restore), writes here wait `ms`. */
  waitForLocks(ms: number): void {
    sqliteHandle(this.dataSource).pragma(`busy_timeout = ${ms}`);
  }

  /** Back to the usual wait. */
  waitForLocksAsUsual(): void {
    this.waitForLocks(BUSY_TIMEOUT_MS);
  }
}
