import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../core/clock/clock';
import { SettingEntity } from './setting.entity';

/** Installation-wide settings, one JSON value per key. */
@Injectable()
export class SettingsStore {
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
}
