import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  anyLikeFragment,
  boolOf,
  sqlClientFor,
  type SqlClient,
  type SqlExecutor,
} from '../core/database/sql-client';
import { UnitOfWork } from '../core/database/unit-of-work';
import { countWhereIn, releaseManagedRows } from '../core/database/where-in';
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
  enabled: boolean;
  last_error_at: number | null;
}

const SELECT = `SELECT id, name, type, config, enabled, title_template, body_template, last_error, last_error_at,
  managed_by, created_at, updated_at FROM channels`;

interface ChannelRow {
  id: number;
  name: string;
  type: string;
  config: string;
  enabled: unknown;
  title_template: string;
  body_template: string;
  last_error: string;
  last_error_at: number | null;
  managed_by: string | null;
  created_at: number;
  updated_at: number;
}

function parseConfig(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const toEntity = (row: ChannelRow): ChannelEntity =>
  Object.assign(new ChannelEntity(), {
    id: Number(row.id),
    name: row.name,
    type: row.type,
    config: parseConfig(row.config),
    enabled: boolOf(row.enabled),
    titleTemplate: row.title_template,
    bodyTemplate: row.body_template,
    lastError: row.last_error,
    lastErrorAt: row.last_error_at,
    managedBy: row.managed_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

const columnParams = (c: ChannelColumns): unknown[] => [
  c.name,
  c.type,
  JSON.stringify(c.config),
  c.enabled,
  c.titleTemplate,
  c.bodyTemplate,
];

const INSERT = `INSERT INTO channels (name, type, config, enabled, title_template, body_template, last_error,
    last_error_at, managed_by, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, '', NULL, ?, ?, ?) RETURNING id`;

const UPDATE = `UPDATE channels SET name = ?, type = ?, config = ?, enabled = ?, title_template = ?,
  body_template = ?, managed_by = ?, updated_at = ? WHERE id = ?`;

/** The only code that reads or writes the `channels` table (the alert outbox has its own). */
@Injectable()
export class ChannelsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly unit: UnitOfWork,
  ) {}

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  /** Every channel by name. */
  async list(): Promise<ChannelEntity[]> {
    return (await this.sql.all<ChannelRow>(`${SELECT} ORDER BY name, id`)).map(toEntity);
  }

  async byId(id: number, tx: SqlExecutor = this.sql): Promise<ChannelEntity | null> {
    const row = await tx.get<ChannelRow>(`${SELECT} WHERE id = ?`, [id]);
    return row ? toEntity(row) : null;
  }

  async insert(columns: ChannelColumns, now: number): Promise<ChannelEntity> {
    const row = await this.sql.get<{ id: number }>(INSERT, [...columnParams(columns), null, now, now]);
    return (await this.byId(Number(row!.id)))!;
  }

  async update(stored: ChannelEntity, columns: ChannelColumns, now: number): Promise<ChannelEntity> {
    await this.sql.run(UPDATE, [...columnParams(columns), stored.managedBy, now, stored.id]);
    return Object.assign(stored, columns, { updatedAt: now });
  }

  /**
   * Deletes a channel; its sensor links and waiting alerts go with it (foreign keys cascade).
   * atomically: a sensor save or a state change that found the channel commits its link or alert
   * first, instead of failing on its foreign key afterwards (PostgreSQL).
   */
  async delete(id: number): Promise<void> {
    await this.unit.atomically((tx) => tx.run('DELETE FROM channels WHERE id = ?', [id]));
  }

  /** The outcome of the latest delivery: an error and when, or '' and null after a success. */
  async recordOutcome(id: number, error: string, at: number | null): Promise<void> {
    await this.sql.run('UPDATE channels SET last_error = ?, last_error_at = ? WHERE id = ?', [error, at, id]);
  }

  /** Channels whose name or type contains the LIKE `pattern`, by name. Never config or templates. */
  async search(pattern: string, limit: number): Promise<ChannelSearchRow[]> {
    const rows = await this.sql.all<ChannelSearchRow & { enabled: unknown }>(
      `SELECT id, name, type, enabled, last_error_at FROM channels
       WHERE ${anyLikeFragment(this.sql.dialect, ['name', 'type'])} ORDER BY name, id LIMIT ?`,
      [pattern, pattern, limit],
    );
    return rows.map((r) => ({ ...r, enabled: boolOf(r.enabled) }));
  }

  /** Channels whose latest delivery failed at or after `since`, by name. */
  failingSince(since: number): Promise<{ name: string; last_error: string }[]> {
    return this.sql.all(
      `SELECT name, last_error FROM channels
       WHERE last_error <> '' AND last_error_at IS NOT NULL AND last_error_at >= ?
       ORDER BY name, id`,
      [since],
    );
  }

  /** Every channel's name in id order (a backup numbers repeated names in this order). */
  async namesInIdOrder(): Promise<string[]> {
    return (await this.sql.all<{ name: string }>('SELECT name FROM channels ORDER BY id')).map((r) => r.name);
  }

  /** How many of `ids` name a channel. */
  countExisting(tx: SqlExecutor, ids: number[]): Promise<number> {
    return countWhereIn(tx, 'channels', 'id', ids);
  }

  /**
   * Creates or updates a channel the configuration file declares, marked as managed by it: the
   * one it already manages, else the oldest of that name. Returns its id.
   */
  async saveDeclared(
    tx: SqlExecutor,
    columns: ChannelColumns,
    managedBy: string,
    now: number,
  ): Promise<number> {
    const row =
      (await tx.get<{ id: number }>(
        'SELECT id FROM channels WHERE name = ? AND managed_by = ? ORDER BY id LIMIT 1',
        [columns.name, managedBy],
      )) ??
      (await tx.get<{ id: number }>('SELECT id FROM channels WHERE name = ? ORDER BY id LIMIT 1', [
        columns.name,
      ]));
    if (row) {
      await tx.run(UPDATE, [...columnParams(columns), managedBy, now, row.id]);
      return Number(row.id);
    }
    const inserted = await tx.get<{ id: number }>(INSERT, [...columnParams(columns), managedBy, now, now]);
    return Number(inserted!.id);
  }

  /** Channels the file managed before and no longer declares go back to the API. */
  releaseDeclared(tx: SqlExecutor, managedBy: string, keep: number[]): Promise<void> {
    return releaseManagedRows(tx, 'channels', managedBy, keep);
  }
}
