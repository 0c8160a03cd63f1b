import { Injectable } from '@nestjs/common';
import type { SensorType } from '@monitor/contracts';
import { InvalidInputError } from '@monitor/domain';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { sqliteHandle } from '../core/database/sqlite-handle';
import { writeAtomically } from '../core/database/write-atomically';
import { EventBus } from '../core/events/event-bus';
import type { SensorDefinition } from '../scheduler/runtime-entry';
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

/** Reads sensors with their channel links. */
@Injectable()
export class SensorsRepository {
  private statements?: { sensors: Database.Statement; links: Database.Statement };
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
}
