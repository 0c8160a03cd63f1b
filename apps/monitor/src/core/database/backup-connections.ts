import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MONITOR_CONFIG } from '../config/config.tokens';
import type { MonitorConfig } from '../config/monitor-config';
import { databasePath } from './database-path';
import type { Dialect } from './dialect';
import { dialectOf } from './dialect';
import { BUSY_TIMEOUT_MS } from './open-database';
import { openReadSnapshot, openSqliteReadSnapshot, type ReadSnapshot } from './own-connection';
import { sqlClientFor, type SqlClient } from './sql-client';

/**
 * The connections backup and restore use, for either backend: a read snapshot of its own for a
 * backup (SQLite: a read-only connection beside the server's; PostgreSQL: a REPEATABLE READ
 * transaction on a pool client), and the client a PostgreSQL restore writes through.
 */
@Injectable()
export class BackupConnections {
  readonly dialect: Dialect;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
  ) {
    this.dialect = dialectOf(dataSource);
  }

  openSnapshot(): Promise<ReadSnapshot> {
    return this.dialect === 'postgres'
      ? openReadSnapshot(sqlClientFor(this.dataSource))
      : openSqliteReadSnapshot(databasePath(this.config.data_dir), BUSY_TIMEOUT_MS);
  }

  /** The server's own client (PostgreSQL: its pool). */
  client(): SqlClient {
    return sqlClientFor(this.dataSource);
  }
}
