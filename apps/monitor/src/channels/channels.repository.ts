import { Injectable } from '@nestjs/common';
import { DataSource, In, Not } from 'typeorm';
import { anyLike } from '../core/database/like-pattern';
import { managerOf, type Tx } from '../core/database/unit-of-work';
import { ChannelEntity } from './channel.entity';

/** What a checked channel definition stores (see channelColumns). */
export interface ChannelColumns {
  name: string;
  type: string;
  config: Record<string, unknown>;
  enabled: boolean;
  titleTemplate: string;
  bodyTemplate: string;
}

/** A channel found by the global search. */
export interface ChannelSearchRow {
  id: number;
  name: string;
  type: string;
  enabled: number;
  last_error_at: number | null;
}

/** The only code that reads or writes the `channels` table (the alert outbox has its own). */
@Injectable()
export class ChannelsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get repo() {
    return this.dataSource.getRepository(ChannelEntity);
  }

  /** Every channel by name. */
  list(): Promise<ChannelEntity[]> {
    return this.repo.find({ order: { name: 'ASC', id: 'ASC' } });
  }

  byId(id: number): Promise<ChannelEntity | null> {
    return this.repo.findOneBy({ id });
  }

  insert(columns: ChannelColumns, now: number): Promise<ChannelEntity> {
    return this.repo.save({
      ...columns,
      lastError: '',
      lastErrorAt: null,
      managedBy: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  update(stored: ChannelEntity, columns: ChannelColumns, now: number): Promise<ChannelEntity> {
    return this.repo.save(Object.assign(stored, columns, { updatedAt: now }));
  }

  /** Deletes a channel; its sensor links and waiting alerts go with it (foreign keys cascade). */
  async delete(id: number): Promise<void> {
    await this.dataSource.transaction((manager) => manager.delete(ChannelEntity, { id }));
  }

  /** The outcome of the latest delivery: an error and when, or '' and null after a success. */
  async recordOutcome(id: number, error: string, at: number | null): Promise<void> {
    await this.repo.update({ id }, { lastError: error, lastErrorAt: at });
  }

  /** Channels whose name or type contains the LIKE `pattern`, by name. Never config or templates. */
  async search(pattern: string, limit: number): Promise<ChannelSearchRow[]> {
    return (await this.dataSource.query(
      `SELECT id, name, type, enabled, last_error_at FROM channels
       WHERE ${anyLike(['name', 'type'])} ORDER BY name, id LIMIT ?`,
      [pattern, pattern, limit],
    )) as ChannelSearchRow[];
  }

  /** Channels whose latest delivery failed at or after `since`, by name. */
  async failingSince(since: number): Promise<{ name: string; last_error: string }[]> {
    return (await this.dataSource.query(
      `SELECT name, last_error FROM channels
       WHERE last_error != '' AND last_error_at IS NOT NULL AND last_error_at >= ?
       ORDER BY name, id`,
      [since],
    )) as { name: string; last_error: string }[];
  }

  /** Every channel's name in id order (a backup numbers repeated names in this order). */
  async namesInIdOrder(): Promise<string[]> {
    const rows = (await this.dataSource.query('SELECT name FROM channels ORDER BY id')) as { name: string }[];
    return rows.map((r) => r.name);
  }

  /** How many of `ids` name a channel. */
  countExisting(tx: Tx, ids: number[]): Promise<number> {
    return managerOf(tx)
      .getRepository(ChannelEntity)
      .countBy({ id: In(ids) });
  }

  /**
   * Creates or updates a channel the configuration file declares, marked as managed by it: the
   * one it already manages, else the oldest of that name. Returns its id.
   */
  async saveDeclared(tx: Tx, columns: ChannelColumns, managedBy: string, now: number): Promise<number> {
    const repository = managerOf(tx).getRepository(ChannelEntity);
    const row =
      (await repository.findOne({ where: { name: columns.name, managedBy } })) ??
      (await repository.findOne({ where: { name: columns.name }, order: { id: 'ASC' } }));
    const values = { ...columns, managedBy, updatedAt: now };
    const saved = await repository.save(
      row ? Object.assign(row, values) : { ...values, lastError: '', lastErrorAt: null, createdAt: now },
    );
    return saved.id;
  }

  /** Channels the file managed before and no longer declares go back to the API. */
  async releaseDeclared(tx: Tx, managedBy: string, keep: number[]): Promise<void> {
    await managerOf(tx)
      .getRepository(ChannelEntity)
      .update({ managedBy, id: Not(In(keep)) }, { managedBy: null });
  }
}
