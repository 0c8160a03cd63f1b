import { Inject, Injectable } from '@nestjs/common';
import type { DoctorCheck } from '@monitor/contracts';
import { DataSource } from 'typeorm';
import { MONITOR_CONFIG } from '../config/config.tokens';
import type { MonitorConfig } from '../config/monitor-config';
import { checkStorage, inspectDatabase } from './database-checks';
import { databasePath } from './database-path';
import { hasRoomToRecover } from './disk-space';
import { APPLICATION_ID } from './database-identity';
import { sqliteHandle } from './sqlite-handle';

/** Questions about the database itself (not about any feature's rows): health and self-checks. */
@Injectable()
export class DatabaseProbe {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
  ) {}

  /** Resolves when the database answers a trivial query; rejects with its error otherwise. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  /**
   * One write that changes nothing (it sets the application id to the value it has), to find out
   * whether writes succeed again; false when it failed or could prove nothing (inside someone
   * else's open transaction).
   */
  async tryWrite(): Promise<boolean> {
    // PostgreSQL's storage failures are its connection: a server that answers takes writes again.
    if (this.config.database_url)
      return this.ping().then(
        () => true,
        () => false,
      );
    const db = sqliteHandle(this.dataSource);
    if (db.inTransaction) return false;
    try {
      db.pragma(`application_id = ${APPLICATION_ID}`);
      return true;
    } catch {
      return false;
    }
  }

  /** SQLite: whether the disk has room for a spell of full-disk failures to end (true on PostgreSQL). */
  hasRoom(): boolean {
    return this.config.database_url ? true : hasRoomToRecover(this.config.data_dir);
  }

  /**
   * SQLite: copies the write-ahead log into the database and cuts it to nothing, giving its space
   * back to the file system; false when it could not (busy, or the database file cannot grow).
   * Never inside an open transaction.
   */
  truncateLog(): boolean {
    if (this.config.database_url) return false;
    const db = sqliteHandle(this.dataSource);
    if (db.inTransaction) return false;
    // TRUNCATE waits for every reader (a backup's snapshot) and writer: never on the event loop.
    const timeout = db.pragma('busy_timeout', { simple: true }) as number;
    db.pragma('busy_timeout = 0');
    try {
      const [row] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      return row?.busy === 0;
    } catch {
      return false;
    } finally {
      db.pragma(`busy_timeout = ${timeout}`);
    }
  }

  /**
   * The `database` and `migrations` checks (read only): over the running server's connection on
   * SQLite, over a read-only session of its own on PostgreSQL (with the tables' sizes).
   */
  async inspect(): Promise<DoctorCheck[]> {
    if (this.config.database_url) return checkStorage(this.config.data_dir, this.config.database_url);
    return inspectDatabase(sqliteHandle(this.dataSource), databasePath(this.config.data_dir));
  }
}
