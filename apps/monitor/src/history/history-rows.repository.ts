import type { SqlExecutor } from '../core/database/sql-client';
import { insertRows } from '../core/database/stored-values';

/** The rollup tables backup and restore carry. */
export type RollupTier = 'rollup_hourly' | 'rollup_daily';

/** A bucket of one sensor as a restore stores it: sensor id, start, count, up, latency sum, min, max. */
export type SensorRollupBucket = [number, number, number, number, number, number | null, number | null];

/*
 * The rollup rows as backup and restore read and write them, in one SQL text for both backends
 * (the backup's snapshot, the restore's transaction). Nest-free.
 */

/** A stored bucket as the backup reads it. */
export interface RollupRow {
  bucket_start: number;
  count: number;
  up: number;
  latency_sum: number;
  latency_min: number | null;
  latency_max: number | null;
}

/** A reader of one sensor's buckets from `since` on, oldest first (a sensor's rows at a time). */
export function rollupReader(
  tx: SqlExecutor,
  tier: RollupTier,
): (sensorId: number, since: number) => Promise<RollupRow[]> {
  const sql = `SELECT bucket_start, count, up, latency_sum, latency_min, latency_max FROM ${tier}
       WHERE sensor_id = ? AND bucket_start >= ? ORDER BY bucket_start`;
  return (sensorId, since) => tx.all<RollupRow>(sql, [sensorId, since]);
}

/** Deletes every bucket of the tier and answers a function that stores a batch of them. */
export async function replaceRollups(
  tx: SqlExecutor,
  tier: RollupTier,
): Promise<(buckets: readonly SensorRollupBucket[]) => Promise<void>> {
  await tx.run(`DELETE FROM ${tier}`);
  const columns = ['sensor_id', 'bucket_start', 'count', 'up', 'latency_sum', 'latency_min', 'latency_max'];
  return (buckets) => insertRows(tx, tier, columns, buckets);
}
