import { connectionOf, type SyncTx } from '../core/database/tx';

/** The rollup tables backup and restore carry. */
export type RollupTier = 'rollup_hourly' | 'rollup_daily';

/** One bucket: start, count, up, latency sum, min and max. */
export type RollupBucket = [number, number, number, number, number | null, number | null];

/*
 * The rollup rows as backup and restore read and write them, on a connection of their own (the
 * backup's snapshot, the restore worker's). Nest-free; rows stream one at a time.
 */

/** A reader of one sensor's buckets from `since` on, oldest first (prepared once per tier). */
export function rollupReader(
  tx: SyncTx,
  tier: RollupTier,
): (sensorId: number, since: number) => Iterable<RollupBucket> {
  const read = connectionOf(tx)
    .prepare(
      `SELECT bucket_start, count, up, latency_sum, latency_min, latency_max FROM ${tier}
       WHERE sensor_id = ? AND bucket_start >= ? ORDER BY bucket_start`,
    )
    .raw();
  return (sensorId, since) => read.iterate(sensorId, since) as IterableIterator<RollupBucket>;
}

/** Deletes every bucket of the tier and answers a function that stores one. */
export function replaceRollups(
  tx: SyncTx,
  tier: RollupTier,
): (sensorId: number, ...bucket: RollupBucket) => void {
  const db = connectionOf(tx);
  db.prepare(`DELETE FROM ${tier}`).run();
  const insert = db.prepare(
    `INSERT INTO ${tier} (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  return (sensorId, ...bucket) => insert.run(sensorId, ...bucket);
}
