import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../core/clock/clock';
import { sqlClientFor, type SqlClient, type SqlExecutor } from '../core/database/sql-client';

const UPSERT = `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`;

/** Installation-wide settings, one JSON value per key: the only code that touches `settings`. */
@Injectable()
export class SettingsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  /** The value of `key` (read inside `tx` when given), or `fallback`. */
  async get<T>(key: string, fallback: T, tx: SqlExecutor = this.sql): Promise<T> {
    const row = await tx.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]);
    if (!row) return fallback;
    try {
      return JSON.parse(row.value) as T;
    } catch {
      return fallback;
    }
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.sql.run(UPSERT, [key, JSON.stringify(value), this.clock.now()]);
  }

  /** PostgreSQL: the size of the database on the server; null on SQLite (the file is measured). */
  async serverDatabaseBytes(): Promise<number | null> {
    if (this.sql.dialect !== 'postgres') return null;
    const row = await this.sql.get<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes');
    return Number(row?.bytes ?? 0);
  }
}
