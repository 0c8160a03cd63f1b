import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { Clock } from '../core/clock/clock';
import { sqliteHandle } from '../core/database/sqlite-handle';
import { SettingEntity } from './setting.entity';

/** Installation-wide settings, one JSON value per key: the only code that touches `settings`. */
@Injectable()
export class SettingsRepository {
  private statements?: { read: Database.Statement; write: Database.Statement };

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async get<T>(key: string, fallback: T): Promise<T> {
    const row = await this.dataSource.getRepository(SettingEntity).findOneBy({ key });
    if (!row) return fallback;
    try {
      return JSON.parse(row.value) as T;
    } catch {
      return fallback;
    }
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.dataSource
      .getRepository(SettingEntity)
      .save({ key, value: JSON.stringify(value), updatedAt: this.clock.now() });
  }

  /** get() as a synchronous read (the maintenance pass's watermarks); undefined when absent. */
  readNow<T>(key: string): T | undefined {
    const value = this.prepared().read.get(key) as string | undefined;
    return value === undefined ? undefined : (JSON.parse(value) as T);
  }

  /** set() as a synchronous write, inside the caller's transaction if one is open. */
  writeNow(key: string, value: unknown): void {
    this.prepared().write.run(key, JSON.stringify(value), this.clock.now());
  }

  private prepared() {
    const db = sqliteHandle(this.dataSource);
    return (this.statements ??= {
      read: db.prepare('SELECT value FROM settings WHERE key = ?').pluck(),
      write: db.prepare('INSERT OR REPLACE INTO settings (key, value, updated_at) VALUES (?, ?, ?)'),
    });
  }
}
