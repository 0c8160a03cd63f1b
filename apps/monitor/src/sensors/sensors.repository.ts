import { Injectable } from '@nestjs/common';
import { InvalidInputError } from '@monitor/domain';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import {
  anyLikeFragment,
  boolOf,
  likeFragment,
  sqlClientFor,
  type SqlClient,
  type SqlExecutor,
} from '../core/database/sql-client';
import { sqliteHandle } from '../core/database/sqlite-handle';
import { UnitOfWork } from '../core/database/unit-of-work';
import { countWhereIn, placeholdersFor, releaseManagedRows } from '../core/database/where-in';
import { EventBus } from '../core/events/event-bus';
import { type SensorDefinition, toDefinition } from './sensor-definition';
import type { SensorRuntimeColumns } from './sensor-runtime-columns';
import { RUNTIME_UPDATE, runtimeParams, writeRuntime, writeRuntimeBatch } from './sensor-runtime.sql';
import { SensorEntity } from './sensor.entity';
import type { SensorColumns, SensorRow } from './sensor-rows.sql';

export type { SensorColumns } from './sensor-rows.sql';

const SELECT = `SELECT id, name, type, target, "interval", retries, reminder_every, group_name, tags, site_id,
  parent_id, enabled, options, sort_order, sample, managed_by, status, message, last_checked_at, latency_ms,
  streak, status_changed_at, last_alert_at, created_at, updated_at FROM sensors`;

const toEntity = (row: SensorRow): SensorEntity =>
  Object.assign(new SensorEntity(), {
    id: Number(row.id),
    name: row.name,
    type: row.type,
    target: row.target,
    interval: row.interval,
    retries: row.retries,
    reminderEvery: row.reminder_every,
    group: row.group_name,
    tags: JSON.parse(row.tags) as string[],
    siteId: row.site_id,
    parentId: row.parent_id,
    enabled: boolOf(row.enabled),
    options: JSON.parse(row.options) as Record<string, unknown>,
    sortOrder: row.sort_order,
    sample: boolOf(row.sample),
    managedBy: row.managed_by,
    status: row.status,
    message: row.message,
    lastCheckedAt: row.last_checked_at,
    latencyMs: row.latency_ms,
    streak: row.streak,
    statusChangedAt: row.status_changed_at,
    lastAlertAt: row.last_alert_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

interface SensorList {
  sensors: SensorEntity[];
  channels: Map<number, number[]>;
}

/** A sensor found by the global search. */
export interface SensorSearchRow {
  id: number;
  name: string;
  type: string;
  target: string;
  enabled: boolean;
  status: string;
  last_checked_at: number | null;
}

/** The only code that reads or writes the `sensors` and `sensor_channels` tables. */
@Injectable()
export class SensorsRepository {
  private runtimeUpdate?: Database.Statement;
  private cached?: Promise<SensorList>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly unit: UnitOfWork,
    events: EventBus,
  ) {
    // Every change to a sensor or its channel links is announced; the next read sees it.
    const forget = () => (this.cached = undefined);
    events.on('sensor').subscribe(forget);
    events.on('channel').subscribe(forget);
  }

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  /**
   * Every sensor in dashboard order with its channel links: the dashboard lists thousands every
   * minute. Kept until a `sensor` or `channel` event says a definition changed. The runtime
   * columns in these rows may be stale; views take those from the runtime. The answer is shared:
   * callers must not modify it.
   */
  all(): Promise<SensorList> {
    const read = (this.cached ??= this.read());
    read.catch(() => {
      if (this.cached === read) this.cached = undefined;
    });
    return read;
  }

  private async read(): Promise<SensorList> {
    const rows = await this.sql.all<SensorRow>(`${SELECT} ORDER BY sort_order, id`);
    const links = await this.sql.all<{ sensor_id: number; channel_id: number }>(
      'SELECT sensor_id, channel_id FROM sensor_channels ORDER BY sensor_id, channel_id',
    );
    const channels = new Map<number, number[]>();
    for (const link of links) {
      const list = channels.get(Number(link.sensor_id));
      if (list) list.push(Number(link.channel_id));
      else channels.set(Number(link.sensor_id), [Number(link.channel_id)]);
    }
    return { sensors: rows.map(toEntity), channels };
  }

  async one(
    id: number,
    tx: SqlExecutor = this.sql,
  ): Promise<{ sensor: SensorEntity; channelIds: number[] } | null> {
    const row = await tx.get<SensorRow>(`${SELECT} WHERE id = ?`, [id]);
    if (!row) return null;
    const links = await tx.all<{ channel_id: number }>(
      'SELECT channel_id FROM sensor_channels WHERE sensor_id = ? ORDER BY channel_id',
      [id],
    );
    return { sensor: toEntity(row), channelIds: links.map((l) => Number(l.channel_id)) };
  }

  async definitions(): Promise<SensorDefinition[]> {
    const { sensors, channels } = await this.all();
    return sensors.map((s) => toDefinition(s, channels.get(s.id) ?? []));
  }

  async definition(id: number): Promise<SensorDefinition | null> {
    const found = await this.one(id);
    return found ? toDefinition(found.sensor, found.channelIds) : null;
  }

  /**
   * Stores a dashboard order in one transaction: of racing reorders the last one written stands
   * whole, never a mix. Refuses (nothing written) when an id names no sensor.
   */
  async setOrder(ids: number[]): Promise<void> {
    await this.unit.atomically(async (tx) => {
      if ((await this.countExisting(tx, [...new Set(ids)])) !== new Set(ids).size)
        throw new InvalidInputError('ids names a sensor that does not exist');
      for (const [index, id] of ids.entries())
        await tx.run('UPDATE sensors SET sort_order = ? WHERE id = ?', [index + 1, id]);
    });
  }

  /** Appends a sensor to the dashboard order, as the API and the configuration file create one. */
  async insert(
    tx: SqlExecutor,
    columns: SensorColumns,
    managedBy: string | null,
    now: number,
  ): Promise<SensorEntity> {
    const row = await tx.get<{ id: number }>(
      `INSERT INTO sensors (name, type, target, "interval", retries, reminder_every, group_name, tags, site_id,
         parent_id, enabled, options, sort_order, sample, managed_by, status, message, streak, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(sort_order), 0) + 1 FROM sensors),
         ?, ?, ?, '', 0, ?, ?)
       RETURNING id`,
      [...definitionParams(columns), false, managedBy, columns.enabled ? 'unknown' : 'paused', now, now],
    );
    return (await this.one(Number(row!.id), tx))!.sensor;
  }

  /** Writes new definition columns over a stored sensor (runtime columns stay). */
  async update(
    tx: SqlExecutor,
    sensor: SensorEntity,
    columns: SensorColumns & { managedBy?: string | null },
    now: number,
  ): Promise<SensorEntity> {
    const managedBy = columns.managedBy === undefined ? sensor.managedBy : columns.managedBy;
    await tx.run(
      `UPDATE sensors SET name = ?, type = ?, target = ?, "interval" = ?, retries = ?, reminder_every = ?,
         group_name = ?, tags = ?, site_id = ?, parent_id = ?, enabled = ?, options = ?, managed_by = ?,
         updated_at = ? WHERE id = ?`,
      [...definitionParams(columns), managedBy, now, sensor.id],
    );
    return Object.assign(sensor, columns, { managedBy, updatedAt: now });
  }

  async setEnabled(id: number, enabled: boolean, now: number): Promise<void> {
    await this.sql.run('UPDATE sensors SET enabled = ?, updated_at = ? WHERE id = ?', [enabled, now, id]);
  }

  /**
   * Deletes a sensor; its results, rollups, incidents and links go with it (foreign keys cascade).
   * atomically: a writer that checked the sensor exists (a child, a maintenance window, a state
   * change) commits before it goes, never after with a reference to nothing.
   */
  async delete(id: number): Promise<void> {
    await this.unit.atomically((tx) => tx.run('DELETE FROM "sensors" WHERE "id" = ?', [id]));
  }

  /** Replaces the channels a sensor alerts through. */
  async replaceChannels(tx: SqlExecutor, sensorId: number, channelIds: number[]): Promise<void> {
    await tx.run('DELETE FROM sensor_channels WHERE sensor_id = ?', [sensorId]);
    if (channelIds.length === 0) return;
    await tx.run(
      `INSERT INTO sensor_channels (sensor_id, channel_id) VALUES ${channelIds.map(() => '(?, ?)').join(', ')}`,
      channelIds.flatMap((channelId) => [sensorId, channelId]),
    );
  }

  /** Every sensor's parent, to refuse a cycle before it is stored. */
  async parents(tx: SqlExecutor): Promise<Map<number, number | null>> {
    const rows = await tx.all<{ id: number; parent_id: number | null }>('SELECT id, parent_id FROM sensors');
    return new Map(rows.map((r) => [Number(r.id), r.parent_id === null ? null : Number(r.parent_id)]));
  }

  /** How many of `ids` name a sensor. */
  countExisting(tx: SqlExecutor, ids: number[]): Promise<number> {
    return countWhereIn(tx, 'sensors', 'id', ids);
  }

  /** Which of `ids` name a sensor (ids beyond 32 bits name none: PostgreSQL would refuse them). */
  async existingIds(tx: SqlExecutor, ids: number[]): Promise<Set<number>> {
    const candidates = ids.filter((id) => Number.isInteger(id) && id >= 1 && id <= 2_147_483_647);
    if (candidates.length === 0) return new Set();
    const rows = await tx.all<{ id: number }>(
      `SELECT id FROM sensors WHERE id IN (${placeholdersFor(candidates)})`,
      candidates,
    );
    return new Set(rows.map((r) => Number(r.id)));
  }

  /**
   * The sensor of that name the configuration file already manages (a partial unique index allows
   * one), else the oldest: names need not be unique, and the file adopts the first.
   */
  async findDeclared(tx: SqlExecutor, name: string, managedBy: string): Promise<SensorEntity | null> {
    const row =
      (await tx.get<SensorRow>(`${SELECT} WHERE name = ? AND managed_by = ? ORDER BY id LIMIT 1`, [
        name,
        managedBy,
      ])) ?? (await tx.get<SensorRow>(`${SELECT} WHERE name = ? ORDER BY id LIMIT 1`, [name]));
    return row ? toEntity(row) : null;
  }

  /** Sensors the file managed before and no longer declares go back to the API. */
  releaseDeclared(tx: SqlExecutor, managedBy: string, keep: number[]): Promise<void> {
    return releaseManagedRows(tx, 'sensors', managedBy, keep);
  }

  /** When each sensor last alerted, for the runtime's rebuild at start. */
  async alertTimes(): Promise<{ id: number; last_alert_at: number | null }[]> {
    const rows = await this.sql.all<{ id: number; last_alert_at: number | null }>(
      'SELECT id, last_alert_at FROM sensors',
    );
    return rows.map((r) => ({
      id: Number(r.id),
      last_alert_at: r.last_alert_at === null ? null : Number(r.last_alert_at),
    }));
  }

  /**
   * SQLite's hot path: a sensor's runtime columns, on the shared connection inside the caller's
   * synchronous transaction (the result batch). A deleted sensor changes nothing.
   */
  writeRuntimeNow(id: number, s: SensorRuntimeColumns): void {
    this.runtimeUpdate ??= sqliteHandle(this.dataSource).prepare(RUNTIME_UPDATE);
    this.runtimeUpdate.run(...runtimeParams(id, s));
  }

  /** A sensor's runtime columns inside `tx` (a state change). A deleted sensor changes nothing. */
  writeRuntime(tx: SqlExecutor, id: number, s: SensorRuntimeColumns): Promise<void> {
    return writeRuntime(tx, id, s);
  }

  /** Many sensors' runtime columns in one statement per chunk (PostgreSQL's result batch). */
  writeRuntimeBatch(tx: SqlExecutor, entries: [number, SensorRuntimeColumns][]): Promise<void> {
    return writeRuntimeBatch(tx, entries);
  }

  /**
   * Sensors whose name, target, group, a tag, type or site name contains the LIKE `pattern`; in
   * dashboard order. The site's name is joined in here: the search is about sensors.
   */
  async search(pattern: string, limit: number): Promise<SensorSearchRow[]> {
    const dialect = this.sql.dialect;
    const where = anyLikeFragment(dialect, ['s.name', 's.target', 's.group_name', 's.type', 'st.name']);
    // Each tag on its own, so JSON punctuation and neighbouring tags never take part in a match.
    const tag =
      dialect === 'postgres'
        ? `EXISTS (SELECT 1 FROM json_array_elements_text(CASE WHEN s.tags ~ '^\\s*\\[' THEN s.tags::json
             ELSE '[]'::json END) t(value) WHERE ${likeFragment(dialect, 't.value')})`
        : `EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(s.tags) THEN s.tags ELSE '[]' END) t
             WHERE ${likeFragment(dialect, 't.value')})`;
    const rows = await this.sql.all<SensorSearchRow & { enabled: unknown }>(
      `SELECT s.id, s.name, s.type, s.target, s.enabled, s.status, s.last_checked_at
       FROM sensors s LEFT JOIN sites st ON st.id = s.site_id
       WHERE ${where} OR ${tag}
       ORDER BY s.sort_order, s.id LIMIT ?`,
      [...Array<string>(6).fill(pattern), limit],
    );
    return rows.map((r) => ({ ...r, enabled: boolOf(r.enabled) }));
  }

  /** Every sensor's name in id order (a backup numbers repeated names in this order). */
  async namesInIdOrder(): Promise<string[]> {
    return (await this.sql.all<{ name: string }>('SELECT name FROM sensors ORDER BY id')).map((r) => r.name);
  }

  async nameOf(id: number): Promise<string | null> {
    return (
      (await this.sql.get<{ name: string }>('SELECT name FROM sensors WHERE id = ?', [id]))?.name ?? null
    );
  }

  async count(): Promise<number> {
    return Number((await this.sql.get<{ n: number }>('SELECT count(*) AS n FROM sensors'))?.n ?? 0);
  }

  /** Every sensor's id in ascending order. */
  async ids(): Promise<number[]> {
    return (await this.sql.all<{ id: number }>('SELECT id FROM sensors ORDER BY id')).map((r) =>
      Number(r.id),
    );
  }

  /** The name and interval of one sensor; undefined when there is none. */
  async basics(id: number): Promise<{ id: number; name: string; interval: number } | undefined> {
    const row = await this.sql.get<{ id: number; name: string; interval: number }>(
      'SELECT id, name, "interval" FROM sensors WHERE id = ?',
      [id],
    );
    return row && { id: Number(row.id), name: row.name, interval: Number(row.interval) };
  }

  /** The sensors of a site, by id. */
  async idsOfSite(tx: SqlExecutor, siteId: number): Promise<number[]> {
    const rows = await tx.all<{ id: number }>('SELECT id FROM sensors WHERE site_id = ? ORDER BY id', [
      siteId,
    ]);
    return rows.map((r) => Number(r.id));
  }

  /** Leaves a site's sensors without a site (the site is about to be deleted). */
  async unassignSite(tx: SqlExecutor, siteId: number, now: number): Promise<void> {
    await tx.run('UPDATE sensors SET site_id = NULL, updated_at = ? WHERE site_id = ?', [now, siteId]);
  }

  /** How many sensors each site has. */
  async countsBySite(): Promise<Map<number, number>> {
    const rows = await this.sql.all<{ site_id: number; n: number }>(
      'SELECT site_id, count(*) AS n FROM sensors WHERE site_id IS NOT NULL GROUP BY site_id',
    );
    return new Map(rows.map((r) => [Number(r.site_id), Number(r.n)]));
  }
}

const definitionParams = (c: SensorColumns): unknown[] => [
  c.name,
  c.type,
  c.target,
  c.interval,
  c.retries,
  c.reminderEvery,
  c.group,
  JSON.stringify(c.tags),
  c.siteId,
  c.parentId,
  c.enabled,
  JSON.stringify(c.options),
];
