import type { SqlExecutor } from '../core/database/sql-client';
import type { SampleSensor } from './sensor-rows.sql';

/*
 * The sample sensors' rows (sample = true), written and removed by the examples feature inside
 * its `atomically` transaction, in one SQL text for both backends.
 */

/** The id of the oldest sensor of that name, if any. */
export async function sensorIdByName(tx: SqlExecutor, name: string): Promise<number | undefined> {
  const row = await tx.get<{ id: number }>('SELECT id FROM sensors WHERE name = ? ORDER BY id LIMIT 1', [
    name,
  ]);
  return row ? Number(row.id) : undefined;
}

/** The sites some sensor uses. */
export async function siteIdsInUse(tx: SqlExecutor): Promise<Set<number>> {
  const rows = await tx.all<{ site_id: number }>(
    'SELECT DISTINCT site_id FROM sensors WHERE site_id IS NOT NULL',
  );
  return new Set(rows.map((r) => Number(r.site_id)));
}

/** Inserts a sample sensor at the end of the dashboard order; returns its id. */
export async function insertSampleSensor(tx: SqlExecutor, s: SampleSensor, now: number): Promise<number> {
  const row = await tx.get<{ id: number }>(
    `INSERT INTO sensors (name, type, target, "interval", retries, reminder_every, group_name, tags, site_id,
       parent_id, enabled, options, sort_order, sample, status, message, last_checked_at, latency_ms, streak,
       status_changed_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(sort_order), 0) + 1 FROM sensors), ?, ?, ?,
       ?, ?, 0, ?, ?, ?)
     RETURNING id`,
    [
      s.name,
      s.type,
      s.target,
      s.interval,
      s.retries,
      s.reminderEvery,
      s.group,
      JSON.stringify(s.tags),
      s.siteId,
      s.parentId,
      s.enabled,
      JSON.stringify(s.options),
      true,
      s.enabled ? 'unknown' : 'paused',
      s.message,
      s.lastCheckedAt,
      s.latencyMs,
      s.lastCheckedAt,
      now,
      now,
    ],
  );
  return Number(row!.id);
}

/** The sample sensors' ids. */
export async function sampleSensorIds(tx: SqlExecutor): Promise<number[]> {
  const rows = await tx.all<{ id: number }>('SELECT id FROM sensors WHERE sample = ? ORDER BY id', [true]);
  return rows.map((r) => Number(r.id));
}

/** Deletes the sample sensors (with everything that cascades from them). */
export async function deleteSampleSensors(tx: SqlExecutor): Promise<void> {
  await tx.run('DELETE FROM sensors WHERE sample = ?', [true]);
}
