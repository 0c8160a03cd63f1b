import { connectionOf, type SyncTx } from '../core/database/tx';

/** A sensor's definition as backup and restore carry it (site and parent resolved by the caller). */
export interface SensorRecord {
  name: string;
  type: string;
  target: string;
  interval: number;
  retries: number;
  reminder_every: number;
  group: string;
  tags: string[];
  enabled: boolean;
  options: Record<string, unknown>;
  sort_order: number;
  sample: boolean;
}

/** A stored sensor as a restore matches it: by name in id order; the file's own are kept. */
export interface StoredSensorName {
  id: number;
  name: string;
  enabled: number;
  managed_by: string | null;
}

/*
 * The sensors' rows as backup, restore and sample data read and write them, inside a synchronous
 * transaction (the backup's snapshot, the restore worker's own connection, a sample load).
 * Nest-free, so the restore worker can load them.
 */

const parseOr = <T>(text: string, fallback: T): T => {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

interface Row {
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
}

/** Every sensor in id order, with its site and parent ids. */
export function exportSensors(
  tx: SyncTx,
): (SensorRecord & { id: number; siteId: number | null; parentId: number | null })[] {
  const rows = connectionOf(tx).prepare('SELECT * FROM sensors ORDER BY id').all() as Row[];
  return rows.map((s) => ({
    id: s.id,
    name: s.name,
    type: s.type,
    target: s.target,
    interval: s.interval,
    retries: s.retries,
    reminder_every: s.reminder_every,
    group: s.group_name,
    tags: parseOr(s.tags, []),
    siteId: s.site_id,
    parentId: s.parent_id,
    enabled: s.enabled === 1,
    options: parseOr(s.options, {}),
    sort_order: s.sort_order,
    sample: s.sample === 1,
  }));
}

/** Each sensor's channel ids, ascending. */
export function exportSensorChannels(tx: SyncTx): Map<number, number[]> {
  const links = new Map<number, number[]>();
  for (const link of connectionOf(tx)
    .prepare('SELECT sensor_id, channel_id FROM sensor_channels ORDER BY sensor_id, channel_id')
    .all() as { sensor_id: number; channel_id: number }[]) {
    const list = links.get(link.sensor_id) ?? [];
    list.push(link.channel_id);
    links.set(link.sensor_id, list);
  }
  return links;
}

export function storedSensorNames(tx: SyncTx): StoredSensorName[] {
  return connectionOf(tx)
    .prepare('SELECT id, name, enabled, managed_by FROM sensors ORDER BY id')
    .all() as StoredSensorName[];
}

/** Deletes a sensor; its results, rollups, incidents, links and window entries go with it. */
export function deleteSensor(tx: SyncTx, id: number): void {
  connectionOf(tx).prepare('DELETE FROM sensors WHERE id = ?').run(id);
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
  s.enabled ? 1 : 0,
  JSON.stringify(s.options),
  s.sort_order,
  s.sample ? 1 : 0,
];

/**
 * Writes a definition over a stored sensor (its parent is set afterwards, see setParent); when
 * it was paused or resumed, its status starts over.
 */
export function updateSensor(
  tx: SyncTx,
  id: number,
  s: SensorRecord,
  siteId: number | null,
  wasEnabled: boolean,
  now: number,
): void {
  const db = connectionOf(tx);
  db.prepare(
    `UPDATE sensors SET type = ?, target = ?, interval = ?, retries = ?, reminder_every = ?, group_name = ?,
       tags = ?, site_id = ?, enabled = ?, options = ?, sort_order = ?, sample = ?, parent_id = NULL,
       updated_at = ? WHERE id = ?`,
  ).run(...values(s, siteId), now, id);
  if (wasEnabled !== s.enabled)
    db.prepare(`UPDATE sensors SET status = ?, streak = 0 WHERE id = ?`).run(
      s.enabled ? 'unknown' : 'paused',
      id,
    );
}

/** Inserts a sensor not checked yet; its id. */
export function insertSensor(tx: SyncTx, s: SensorRecord, siteId: number | null, now: number): number {
  const run = connectionOf(tx)
    .prepare(
      `INSERT INTO sensors (name, type, target, interval, retries, reminder_every, group_name, tags, site_id,
         enabled, options, sort_order, sample, managed_by, status, message, streak, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, '', 0, ?, ?)`,
    )
    .run(s.name, ...values(s, siteId), s.enabled ? 'unknown' : 'paused', now, now);
  return Number(run.lastInsertRowid);
}

export function setParent(tx: SyncTx, id: number, parentId: number): void {
  connectionOf(tx).prepare('UPDATE sensors SET parent_id = ? WHERE id = ?').run(parentId, id);
}

/** Replaces a sensor's channel links. */
export function setChannelLinks(tx: SyncTx, id: number, channelIds: number[]): void {
  const db = connectionOf(tx);
  db.prepare('DELETE FROM sensor_channels WHERE sensor_id = ?').run(id);
  const link = db.prepare('INSERT OR IGNORE INTO sensor_channels (sensor_id, channel_id) VALUES (?, ?)');
  for (const channelId of channelIds) link.run(id, channelId);
}

/** A sample sensor with its invented last check (see the examples feature). */
export interface SampleSensor {
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
  message: string;
  lastCheckedAt: number | null;
  latencyMs: number | null;
}

/** The id of the oldest sensor of that name, if any. */
export function sensorIdByName(tx: SyncTx, name: string): number | undefined {
  return connectionOf(tx)
    .prepare('SELECT id FROM sensors WHERE name = ? ORDER BY id LIMIT 1')
    .pluck()
    .get(name) as number | undefined;
}

/** The sites some sensor uses. */
export function siteIdsInUse(tx: SyncTx): Set<number> {
  return new Set(
    connectionOf(tx)
      .prepare('SELECT DISTINCT site_id FROM sensors WHERE site_id IS NOT NULL')
      .pluck()
      .all() as number[],
  );
}

/** Inserts a sample sensor (`sample = 1`) at the end of the dashboard order; returns its id. */
export function insertSampleSensor(tx: SyncTx, s: SampleSensor, now: number): number {
  return Number(
    connectionOf(tx)
      .prepare(
        `INSERT INTO sensors (name, type, target, interval, retries, reminder_every, group_name, tags, site_id,
           parent_id, enabled, options, sort_order, sample, status, message, last_checked_at, latency_ms, streak,
           status_changed_at, created_at, updated_at)
         VALUES (@name, @type, @target, @interval, @retries, @reminderEvery, @group, @tags, @siteId, @parentId,
           @enabled, @options, (SELECT coalesce(max(sort_order), 0) + 1 FROM sensors), 1, @status, @message,
           @lastCheckedAt, @latencyMs, 0, @lastCheckedAt, @now, @now)`,
      )
      .run({
        ...s,
        tags: JSON.stringify(s.tags),
        options: JSON.stringify(s.options),
        enabled: s.enabled ? 1 : 0,
        status: s.enabled ? 'unknown' : 'paused',
        now,
      }).lastInsertRowid,
  );
}

/** The sample sensors' ids. */
export function sampleSensorIds(tx: SyncTx): number[] {
  return connectionOf(tx).prepare('SELECT id FROM sensors WHERE sample = 1').pluck().all() as number[];
}

/** Deletes the sample sensors (with everything that cascades from them). */
export function deleteSampleSensors(tx: SyncTx): void {
  connectionOf(tx).prepare('DELETE FROM sensors WHERE sample = 1').run();
}
