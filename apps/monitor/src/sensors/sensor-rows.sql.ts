import type { SensorStatus } from '@monitor/contracts';
import type { SensorFieldValues } from '@monitor/domain';
import type { SqlExecutor } from '../core/database/sql-client';
import { parseJsonOr, storedBoolean } from '../core/database/stored-values';

/** A sensor's definition as backup and restore carry it (site and parent resolved by the caller). */
export type SensorRecord = Omit<SensorFieldValues, 'type' | 'site' | 'channels'> & {
  type: string;
  sort_order: number;
  sample: boolean;
};

/** A stored sensor as a restore matches it: by name in id order; the file's own are kept. */
export interface StoredSensorName {
  id: number;
  name: string;
  enabled: boolean;
  managed_by: string | null;
}

/*
 * The sensors' rows as backup and restore read and write them, in one SQL text for both backends
 * (the backup's snapshot, the restore's transaction), and as sample data writes them (still in a
 * synchronous SQLite transaction). Nest-free, so the restore worker can load them.
 */

/** A row of the sensors table as both backends return it (booleans as 1/0 or true/false, JSON as text). */
export type SensorRow = Omit<SensorRecord, 'group' | 'tags' | 'enabled' | 'options' | 'sample'> & {
  id: number;
  group_name: string;
  tags: string;
  site_id: number | null;
  parent_id: number | null;
  enabled: unknown;
  options: string;
  sample: unknown;
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
};

/** The columns backup and restore read. */
type Row = Omit<
  SensorRow,
  | 'managed_by'
  | 'status'
  | 'message'
  | 'last_checked_at'
  | 'latency_ms'
  | 'streak'
  | 'status_changed_at'
  | 'last_alert_at'
  | 'created_at'
  | 'updated_at'
>;

/** Every sensor in id order, with its site and parent ids. */
export async function exportSensors(
  tx: SqlExecutor,
): Promise<(SensorRecord & { id: number; siteId: number | null; parentId: number | null })[]> {
  const rows = await tx.all<Row>(
    `SELECT id, name, type, target, "interval", retries, reminder_every, group_name, tags, site_id, parent_id,
       enabled, options, sort_order, sample FROM sensors ORDER BY id`,
  );
  return rows.map((s) => ({
    id: s.id,
    name: s.name,
    type: s.type,
    target: s.target,
    interval: s.interval,
    retries: s.retries,
    reminder_every: s.reminder_every,
    group: s.group_name,
    tags: parseJsonOr(s.tags, []),
    siteId: s.site_id,
    parentId: s.parent_id,
    enabled: storedBoolean(s.enabled),
    options: parseJsonOr(s.options, {}),
    sort_order: s.sort_order,
    sample: storedBoolean(s.sample),
  }));
}

/** Each sensor's channel ids, ascending. */
export async function exportSensorChannels(tx: SqlExecutor): Promise<Map<number, number[]>> {
  const links = new Map<number, number[]>();
  for (const link of await tx.all<{ sensor_id: number; channel_id: number }>(
    'SELECT sensor_id, channel_id FROM sensor_channels ORDER BY sensor_id, channel_id',
  )) {
    const list = links.get(link.sensor_id) ?? [];
    list.push(link.channel_id);
    links.set(link.sensor_id, list);
  }
  return links;
}

export async function storedSensorNames(tx: SqlExecutor): Promise<StoredSensorName[]> {
  const rows = await tx.all<Omit<StoredSensorName, 'enabled'> & { enabled: unknown }>(
    'SELECT id, name, enabled, managed_by FROM sensors ORDER BY id',
  );
  return rows.map((row) => ({ ...row, enabled: storedBoolean(row.enabled) }));
}

/** Deletes a sensor; its results, rollups, incidents, links and window entries go with it. */
export async function deleteSensor(tx: SqlExecutor, id: number): Promise<void> {
  await tx.run('DELETE FROM sensors WHERE id = ?', [id]);
}

const values = (s: SensorRecord, siteId: number | null) => [
  s.type,
  s.target,
  s.interval,
  s.retries,
  s.reminder_every,
  s.group,
  JSON.stringify(s.tags),
  siteId,
  s.enabled,
  JSON.stringify(s.options),
  s.sort_order,
  s.sample,
];

/**
 * Writes a definition over a stored sensor (its parent is set afterwards, see setParent); when
 * it was paused or resumed, its status starts over.
 */
export async function updateSensor(
  tx: SqlExecutor,
  id: number,
  s: SensorRecord,
  siteId: number | null,
  wasEnabled: boolean,
  now: number,
): Promise<void> {
  await tx.run(
    `UPDATE sensors SET type = ?, target = ?, "interval" = ?, retries = ?, reminder_every = ?, group_name = ?,
       tags = ?, site_id = ?, enabled = ?, options = ?, sort_order = ?, sample = ?, parent_id = NULL,
       updated_at = ? WHERE id = ?`,
    [...values(s, siteId), now, id],
  );
  if (wasEnabled !== s.enabled)
    await tx.run(`UPDATE sensors SET status = ?, streak = 0 WHERE id = ?`, [
      s.enabled ? 'unknown' : 'paused',
      id,
    ]);
}

/** Inserts a sensor not checked yet; its id. */
export async function insertSensor(
  tx: SqlExecutor,
  s: SensorRecord,
  siteId: number | null,
  now: number,
): Promise<number> {
  const row = await tx.get<{ id: number }>(
    `INSERT INTO sensors (name, type, target, "interval", retries, reminder_every, group_name, tags, site_id,
       enabled, options, sort_order, sample, managed_by, status, message, streak, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, '', 0, ?, ?) RETURNING id`,
    [s.name, ...values(s, siteId), s.enabled ? 'unknown' : 'paused', now, now],
  );
  return Number(row!.id);
}

export async function setParent(tx: SqlExecutor, id: number, parentId: number): Promise<void> {
  await tx.run('UPDATE sensors SET parent_id = ? WHERE id = ?', [parentId, id]);
}

/** Replaces a sensor's channel links. */
export async function setChannelLinks(tx: SqlExecutor, id: number, channelIds: number[]): Promise<void> {
  await tx.run('DELETE FROM sensor_channels WHERE sensor_id = ?', [id]);
  for (const channelId of channelIds)
    await tx.run('INSERT INTO sensor_channels (sensor_id, channel_id) VALUES (?, ?) ON CONFLICT DO NOTHING', [
      id,
      channelId,
    ]);
}

/**
 * The definition columns of a sensor as the entity names them (a checked draft with its site
 * resolved; see draftColumns): the fields of the list, site and channels aside, a few renamed.
 */
export type SensorColumns = Omit<SensorFieldValues, 'type' | 'reminder_every' | 'site' | 'channels'> & {
  type: string;
  reminderEvery: number;
  siteId: number | null;
  parentId: number | null;
};

/** A sample sensor with its invented last check (see the examples feature). */
export interface SampleSensor extends SensorColumns {
  message: string;
  lastCheckedAt: number | null;
  latencyMs: number | null;
}
