import { Injectable } from '@nestjs/common';
import type { SensorType } from '@monitor/contracts';
import { InvalidInputError } from '@monitor/domain';
import type Database from 'better-sqlite3';
import { DataSource, In, Not } from 'typeorm';
import { anyLike, like } from '../core/database/like-pattern';
import { sqliteHandle } from '../core/database/sqlite-handle';
import { connectionOf, managerOf, type SyncTx, type Tx } from '../core/database/unit-of-work';
import { writeAtomically } from '../core/database/write-atomically';
import { EventBus } from '../core/events/event-bus';
import type { SensorDefinition } from '../scheduler/runtime-entry';
import type { SensorRuntimeColumns } from './sensor-runtime-columns';
import { SensorChannelEntity } from './sensor-channel.entity';
import { SensorEntity, type SensorStatus } from './sensor.entity';

export const toDefinition = (s: SensorEntity, channelIds: number[]): SensorDefinition => ({
  id: s.id,
  name: s.name,
  type: s.type as SensorType,
  target: s.target,
  interval: s.interval,
  retries: s.retries,
  reminderEvery: s.reminderEvery,
  group: s.group,
  tags: s.tags,
  enabled: s.enabled,
  options: s.options,
  parentId: s.parentId,
  channelIds,
});

interface SensorRow {
  id: number;
  name: string;
  type: string;
  target: string;
  interval: number;
  retries: number;
  reminder_every: number;
  group_name: string;
  tags: string;
  site_id: number | null;
  parent_id: number | null;
  enabled: number;
  options: string;
  sort_order: number;
  sample: number;
  managed_by: string | null;
  status: SensorStatus;
  message: string;
  last_checked_at: number | null;
  latency_ms: number | null;
  streak: number;
  status_changed_at: number | null;
  last_alert_at: number | null;
  created_at: number;
  updated_at: number;
}

const toEntity = (row: SensorRow): SensorEntity =>
  Object.assign(new SensorEntity(), {
    id: row.id,
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
    enabled: row.enabled === 1,
    options: JSON.parse(row.options) as Record<string, unknown>,
    sortOrder: row.sort_order,
    sample: row.sample === 1,
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

/** The definition columns of a sensor (a checked draft with its site resolved; see draftColumns). */
export interface SensorColumns {
  name: string;
  type: string;
  target: string;
  interval: number;
  retries: number;
  reminderEvery: number;
  group: string;
  tags: string[];
  siteId: number | null;
  parentId: number | null;
  enabled: boolean;
  options: Record<string, unknown>;
}

/** A sensor found by the global search. */
export interface SensorSearchRow {
  id: number;
  name: string;
  type: string;
  target: string;
  enabled: number;
  status: string;
  last_checked_at: number | null;
}

/** The only code that reads or writes the `sensors` and `sensor_channels` tables. */
@Injectable()
export class SensorsRepository {
  private statements?: { sensors: Database.Statement; links: Database.Statement };
  private runtimeUpdate?: Database.Statement;
  private allIds?: Database.Statement;
  private basics?: Database.Statement;
  private cached?: SensorList;

  constructor(
    private readonly dataSource: DataSource,
    events: EventBus,
  ) {
    // Every change to a sensor or its channel links is announced; the next read sees it.
    const forget = () => (this.cached = undefined);
    events.on('sensor').subscribe(forget);
    events.on('channel').subscribe(forget);
  }

  /**
   * Every sensor in dashboard order with its channel links: the dashboard lists thousands every
   * minute. Read through prepared statements (entity hydration triples the cost) and kept until a
   * `sensor` or `channel` event says a definition changed. The runtime columns in these rows may
   * be stale; views take those from the runtime. The answer is shared: callers must not modify it.
   */
  all(): Promise<SensorList> {
    this.cached ??= this.read();
    return Promise.resolve(this.cached);
  }

  private read(): SensorList {
    this.statements ??= {
      sensors: sqliteHandle(this.dataSource).prepare('SELECT * FROM sensors ORDER BY sort_order, id'),
      links: sqliteHandle(this.dataSource).prepare(
        'SELECT sensor_id, channel_id FROM sensor_channels ORDER BY sensor_id, channel_id',
      ),
    };
    const sensors = (this.statements.sensors.all() as SensorRow[]).map(toEntity);
    const channels = new Map<number, number[]>();
    for (const link of this.statements.links.all() as { sensor_id: number; channel_id: number }[]) {
      const list = channels.get(link.sensor_id);
      if (list) list.push(link.channel_id);
      else channels.set(link.sensor_id, [link.channel_id]);
    }
    return { sensors, channels };
  }

  async one(id: number): Promise<{ sensor: SensorEntity; channelIds: number[] } | null> {
    const sensor = await this.dataSource.getRepository(SensorEntity).findOneBy({ id });
    if (!sensor) return null;
    const links = await this.dataSource
      .getRepository(SensorChannelEntity)
      .find({ where: { sensorId: id }, order: { channelId: 'ASC' } });
    return { sensor, channelIds: links.map((l) => l.channelId) };
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
    await writeAtomically(this.dataSource, (db) => {
      const known = db.prepare('SELECT 1 FROM sensors WHERE id = ?').pluck();
      if (ids.some((id) => known.get(id) === undefined))
        throw new InvalidInputError('ids names a sensor that does not exist');
      const place = db.prepare('UPDATE sensors SET sort_order = ? WHERE id = ?');
      ids.forEach((id, index) => place.run(index + 1, id));
    });
  }

  /** Appends a sensor to the dashboard order, as the API and the configuration file create one. */
  async insert(tx: Tx, columns: SensorColumns, managedBy: string | null, now: number): Promise<SensorEntity> {
    const m = managerOf(tx);
    const [{ next }] = (await m.query('SELECT coalesce(max(sort_order), 0) + 1 AS next FROM sensors')) as {
      next: number;
    }[];
    return m.getRepository(SensorEntity).save({
      ...columns,
      sortOrder: next,
      sample: false,
      managedBy,
      status: columns.enabled ? 'unknown' : 'paused',
      message: '',
      streak: 0,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** Writes new definition columns over a stored sensor (runtime columns stay). */
  async update(
    tx: Tx,
    sensor: SensorEntity,
    columns: SensorColumns & { managedBy?: string | null },
    now: number,
  ): Promise<SensorEntity> {
    return managerOf(tx).save(Object.assign(sensor, columns, { updatedAt: now }));
  }

  async setEnabled(id: number, enabled: boolean, now: number): Promise<void> {
    await this.dataSource.getRepository(SensorEntity).update({ id }, { enabled, updatedAt: now });
  }

  /** Deletes a sensor; its results, rollups, incidents and links go with it (foreign keys cascade). */
  async delete(id: number): Promise<void> {
    await this.dataSource.transaction((m) => m.delete(SensorEntity, { id }));
  }

  /** Replaces the channels a sensor alerts through. */
  async replaceChannels(tx: Tx, sensorId: number, channelIds: number[]): Promise<void> {
    const links = managerOf(tx).getRepository(SensorChannelEntity);
    await links.delete({ sensorId });
    if (channelIds.length > 0) await links.insert(channelIds.map((channelId) => ({ sensorId, channelId })));
  }

  /** Every sensor's parent, to refuse a cycle before it is stored. */
  async parents(tx: Tx): Promise<Map<number, number | null>> {
    const rows = (await managerOf(tx).query('SELECT id, parent_id FROM sensors')) as {
      id: number;
      parent_id: number | null;
    }[];
    return new Map(rows.map((r) => [r.id, r.parent_id]));
  }

  /** How many of `ids` name a sensor. */
  async countExisting(tx: Tx, ids: number[]): Promise<number> {
    return managerOf(tx)
      .getRepository(SensorEntity)
      .countBy({ id: In(ids) });
  }

  /**
   * The sensor of that name the configuration file already manages (a partial unique index allows
   * one), else the oldest: names need not be unique, and the file adopts the first.
   */
  async findDeclared(tx: Tx, name: string, managedBy: string): Promise<SensorEntity | null> {
    const repository = managerOf(tx).getRepository(SensorEntity);
    return (
      (await repository.findOne({ where: { name, managedBy } })) ??
      (await repository.findOne({ where: { name }, order: { id: 'ASC' } }))
    );
  }

  /** Sensors the file managed before and no longer declares go back to the API. */
  async releaseDeclared(tx: Tx, managedBy: string, keep: number[]): Promise<void> {
    await managerOf(tx)
      .getRepository(SensorEntity)
      .update({ managedBy, id: Not(In(keep)) }, { managedBy: null });
  }

  /** When each sensor last alerted, for the runtime's rebuild at start. */
  async alertTimes(): Promise<{ id: number; last_alert_at: number | null }[]> {
    return (await this.dataSource.query('SELECT id, last_alert_at FROM sensors')) as {
      id: number;
      last_alert_at: number | null;
    }[];
  }

  /**
   * A sensor's runtime columns, on the shared connection inside the caller's synchronous
   * transaction (the result batch, a state change). A deleted sensor changes nothing.
   */
  writeRuntimeNow(id: number, s: SensorRuntimeColumns): void {
    this.runtimeUpdate ??= sqliteHandle(this.dataSource).prepare(
      `UPDATE sensors SET status = ?, message = ?, last_checked_at = ?, latency_ms = ?, streak = ?,
         status_changed_at = coalesce(?, status_changed_at), last_alert_at = ? WHERE id = ?`,
    );
    this.runtimeUpdate.run(
      s.status,
      s.message,
      s.lastCheckedAt,
      s.latencyMs,
      s.streak,
      s.statusChangedAt,
      s.lastAlertAt,
      id,
    );
  }

  /**
   * Sensors whose name, target, group, a tag, type or site name contains the LIKE `pattern`; in
   * dashboard order. The site's name is joined in here: the search is about sensors.
   */
  async search(pattern: string, limit: number): Promise<SensorSearchRow[]> {
    const where = anyLike(['s.name', 's.target', 's.group_name', 's.type', 'st.name']);
    // Each tag on its own, so JSON punctuation and neighbouring tags never take part in a match.
    const tag = `EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(s.tags) THEN s.tags ELSE '[]' END) t
      WHERE ${like('t.value')})`;
    return (await this.dataSource.query(
      `SELECT s.id, s.name, s.type, s.target, s.enabled, s.status, s.last_checked_at
       FROM sensors s LEFT JOIN sites st ON st.id = s.site_id
       WHERE ${where} OR ${tag}
       ORDER BY s.sort_order, s.id LIMIT ?`,
      [...Array<string>(6).fill(pattern), limit],
    )) as SensorSearchRow[];
  }

  /** Every sensor's name in id order (a backup numbers repeated names in this order). */
  async namesInIdOrder(): Promise<string[]> {
    const rows = (await this.dataSource.query('SELECT name FROM sensors ORDER BY id')) as { name: string }[];
    return rows.map((r) => r.name);
  }

  async nameOf(id: number): Promise<string | null> {
    return (await this.dataSource.getRepository(SensorEntity).findOneBy({ id }))?.name ?? null;
  }

  async count(): Promise<number> {
    return this.dataSource.getRepository(SensorEntity).count();
  }

  /** Every sensor's id in ascending order, read now. */
  idsNow(): number[] {
    this.allIds ??= sqliteHandle(this.dataSource).prepare('SELECT id FROM sensors ORDER BY id').pluck();
    return this.allIds.all() as number[];
  }

  /** The name and interval of one sensor, read now; undefined when there is none. */
  basicsNow(id: number): { id: number; name: string; interval: number } | undefined {
    this.basics ??= sqliteHandle(this.dataSource).prepare(
      'SELECT id, name, interval FROM sensors WHERE id = ?',
    );
    return this.basics.get(id) as { id: number; name: string; interval: number } | undefined;
  }

  /** The sensors of a site, by id. */
  idsOfSite(tx: SyncTx, siteId: number): number[] {
    return connectionOf(tx)
      .prepare('SELECT id FROM sensors WHERE site_id = ? ORDER BY id')
      .pluck()
      .all(siteId) as number[];
  }

  /** Leaves a site's sensors without a site (the site is about to be deleted). */
  unassignSite(tx: SyncTx, siteId: number, now: number): void {
    connectionOf(tx)
      .prepare('UPDATE sensors SET site_id = NULL, updated_at = ? WHERE site_id = ?')
      .run(now, siteId);
  }

  /** How many sensors each site has. */
  async countsBySite(): Promise<Map<number, number>> {
    const rows = (await this.dataSource.query(
      'SELECT site_id, count(*) AS n FROM sensors WHERE site_id IS NOT NULL GROUP BY site_id',
    )) as { site_id: number; n: number }[];
    return new Map(rows.map((r) => [r.site_id, Number(r.n)]));
  }
}
