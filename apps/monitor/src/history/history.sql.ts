import type Database from 'better-sqlite3';
import type { HistoryTier } from '@monitor/contracts';
import { DAY_MS, HOUR_MS, type Bucket } from '@monitor/domain';
import type { SqlExecutor } from '../core/database/sql-client';
import { insertRows } from '../core/database/stored-values';
import { placeholdersFor } from '../core/database/where-in';
import type { StoredResult } from './stored-result';

/*
 * The SQL text of `probe_results`, `rollup_hourly` and `rollup_daily`, one text for both backends
 * unless named otherwise (SqliteStatements). Plain functions over an executor: HistoryRepository
 * exposes them to the app, and backup and restore call the rollup rows' functions inside their own
 * snapshot or transaction.
 */

// ---------------------------------------------------------------------------------------------
// Aggregates: latency statistics cover successful samples only (see libs/domain rollup-bucket).

/** Raw results summarised, SQLite only (it sums booleans). */
const RAW_AGGREGATES = `count(*) AS count, coalesce(sum(success), 0) AS up,
  coalesce(sum(CASE WHEN success THEN latency_ms END), 0) AS latency_sum,
  min(CASE WHEN success THEN latency_ms END) AS latency_min,
  max(CASE WHEN success THEN latency_ms END) AS latency_max`;
/** RAW_AGGREGATES for both backends (PostgreSQL cannot sum booleans). */
const PORTABLE_RAW_AGGREGATES = `count(*) AS count, coalesce(sum(CASE WHEN success THEN 1 ELSE 0 END), 0) AS up,
  coalesce(sum(CASE WHEN success THEN latency_ms END), 0) AS latency_sum,
  min(CASE WHEN success THEN latency_ms END) AS latency_min,
  max(CASE WHEN success THEN latency_ms END) AS latency_max`;
/** Buckets merged into one. */
const ROLLUP_AGGREGATES = `coalesce(sum(count), 0) AS count, coalesce(sum(up), 0) AS up,
  coalesce(sum(latency_sum), 0) AS latency_sum, min(latency_min) AS latency_min,
  max(latency_max) AS latency_max`;
const REPLACE_BUCKET = `count = excluded.count, up = excluded.up, latency_sum = excluded.latency_sum,
  latency_min = excluded.latency_min, latency_max = excluded.latency_max`;

/** Where each tier lives and how its rows merge into a bucket. */
export const TIERS: Record<HistoryTier, { table: string; time: string; aggregates: string }> = {
  raw: { table: 'probe_results', time: 'ts', aggregates: PORTABLE_RAW_AGGREGATES },
  hourly: { table: 'rollup_hourly', time: 'bucket_start', aggregates: ROLLUP_AGGREGATES },
  daily: { table: 'rollup_daily', time: 'bucket_start', aggregates: ROLLUP_AGGREGATES },
};

export interface BucketRow {
  start: number;
  count: number;
  up: number;
  latency_sum: number;
  latency_min: number | null;
  latency_max: number | null;
}

export const toBucket = (row: Omit<BucketRow, 'start'>): Bucket => ({
  count: Number(row.count),
  up: Number(row.up),
  latencySum: Number(row.latency_sum),
  latencyMin: row.latency_min === null ? null : Number(row.latency_min),
  latencyMax: row.latency_max === null ? null : Number(row.latency_max),
});

/** `ids` in slices of at most `size`. */
function chunks(ids: readonly number[], size: number): number[][] {
  const out: number[][] = [];
  for (let at = 0; at < ids.length; at += size) out.push(ids.slice(at, at + size));
  return out;
}

// ---------------------------------------------------------------------------------------------
// SQLite's hot paths

/**
 * SQLite's hot paths, prepared once: the result batch and the maintenance pass's per-sensor
 * statements run synchronously on the shared connection (see ResultWriter, RollupMaintenance).
 */
export class SqliteStatements {
  readonly summariseHours: Database.Statement;
  readonly summariseDays: Database.Statement;
  readonly pruneRaw: Database.Statement;
  readonly pruneHourly: Database.Statement;
  readonly insertResult: Database.Statement;

  constructor(db: Database.Database) {
    this.summariseHours = db.prepare(
      `INSERT OR REPLACE INTO rollup_hourly (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
       SELECT sensor_id, ts - ts % ${HOUR_MS} AS start, ${RAW_AGGREGATES} FROM probe_results
       WHERE sensor_id = ? AND ts >= ? AND ts < ? GROUP BY start`,
    );
    this.summariseDays = db.prepare(
      `INSERT OR REPLACE INTO rollup_daily (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
       SELECT sensor_id, bucket_start - bucket_start % ${DAY_MS} AS start, ${ROLLUP_AGGREGATES} FROM rollup_hourly
       WHERE sensor_id = ? AND bucket_start >= ? AND bucket_start < ? GROUP BY start`,
    );
    this.pruneRaw = db.prepare('DELETE FROM probe_results WHERE sensor_id = ? AND ts < ?');
    this.pruneHourly = db.prepare('DELETE FROM rollup_hourly WHERE sensor_id = ? AND bucket_start < ?');
    // A sensor deleted while its result waited in the batch is skipped rather than failing it.
    this.insertResult = db.prepare(
      `INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message, instance)
       SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sensors WHERE id = ?)`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Counts

export interface ResultStats {
  count: number;
  oldest: number | null;
  newest: number | null;
}

/** Sensors per statement: well under both backends' parameter limits. */
const SENSORS_PER_STATEMENT = 2000;

/**
 * How many raw results the sensors have, without walking millions of rows, in one statement per
 * 2,000 sensors (a query per sensor costs a round trip each on PostgreSQL). Per sensor the hours the
 * maintenance pass has summarised (before `hourlyThrough`) are counted from their hourly buckets,
 * each holding exactly that hour's results; only the partial first hour and what came after the
 * last pass are counted row by row. Every lookup walks the (sensor_id, ts) index.
 */
export async function resultStats(
  sql: SqlExecutor,
  sensorIds: number[],
  hourlyThrough: number | null,
): Promise<ResultStats> {
  // No pass yet: a watermark before every result counts them all row by row.
  const through = hourlyThrough ?? -1;
  const stats: ResultStats = { count: 0, oldest: null, newest: null };
  for (const ids of chunks(sensorIds, SENSORS_PER_STATEMENT)) {
    const row = await sql.get<{ count: number | null; oldest: number | null; newest: number | null }>(
      `WITH ids (id) AS (VALUES ${ids.map(() => '(CAST(? AS integer))').join(', ')}),
       spans AS MATERIALIZED (
         SELECT id,
           (SELECT min(ts) FROM probe_results r WHERE r.sensor_id = ids.id) AS first,
           (SELECT max(ts) FROM probe_results r WHERE r.sensor_id = ids.id) AS last
         FROM ids),
       parts AS (
         SELECT id, first, last, ((first + ${HOUR_MS - 1}) / ${HOUR_MS}) * ${HOUR_MS} AS full_hours
         FROM spans WHERE first IS NOT NULL)
       SELECT min(first) AS oldest, max(last) AS newest, sum(
         CASE WHEN full_hours >= ? THEN (SELECT count(*) FROM probe_results r WHERE r.sensor_id = parts.id)
         ELSE (SELECT count(*) FROM probe_results r WHERE r.sensor_id = parts.id AND r.ts < parts.full_hours)
           + (SELECT coalesce(sum(h.count), 0) FROM rollup_hourly h
               WHERE h.sensor_id = parts.id AND h.bucket_start >= parts.full_hours AND h.bucket_start < ?)
           + (SELECT count(*) FROM probe_results r WHERE r.sensor_id = parts.id AND r.ts >= ?)
         END) AS count
       FROM parts`,
      [...ids, through, through, through],
    );
    if (!row || row.oldest === null || row.newest === null) continue;
    stats.count += Number(row.count ?? 0);
    stats.oldest = Math.min(stats.oldest ?? Number(row.oldest), Number(row.oldest));
    stats.newest = Math.max(stats.newest ?? Number(row.newest), Number(row.newest));
  }
  return stats;
}

// ---------------------------------------------------------------------------------------------
// Many sensors' rollups at once (a public status page shows hundreds of sensors): one statement
// per few hundred sensors, never one per sensor.

/** Ids per statement: far below either backend's parameter limit. */
const IDS_PER_STATEMENT = 500;

type SensorBucketRow = BucketRow & { sensor_id: number };

/** The sensors' daily buckets in [from, to), per sensor keyed by the bucket's start. */
export async function dailyBucketsOf(
  sql: SqlExecutor,
  sensorIds: readonly number[],
  from: number,
  to: number,
): Promise<Map<number, Map<number, Bucket>>> {
  const out = new Map<number, Map<number, Bucket>>();
  for (const ids of chunks(sensorIds, IDS_PER_STATEMENT)) {
    const rows = await sql.all<SensorBucketRow>(
      `SELECT sensor_id, bucket_start AS start, count, up, latency_sum, latency_min, latency_max
       FROM rollup_daily WHERE sensor_id IN (${placeholdersFor(ids)}) AND bucket_start >= ? AND bucket_start < ?`,
      [...ids, from, to],
    );
    for (const row of rows) {
      const id = Number(row.sensor_id);
      let days = out.get(id);
      if (!days) out.set(id, (days = new Map()));
      days.set(Number(row.start), toBucket(row));
    }
  }
  return out;
}

/** The sensors' buckets of `table` in [from, to) merged, one bucket per sensor that has any. */
export async function totalsOf(
  sql: SqlExecutor,
  table: 'rollup_hourly' | 'rollup_daily',
  sensorIds: readonly number[],
  from: number,
  to: number,
): Promise<Map<number, Bucket>> {
  const out = new Map<number, Bucket>();
  for (const ids of chunks(sensorIds, IDS_PER_STATEMENT)) {
    const rows = await sql.all<Omit<SensorBucketRow, 'start'>>(
      `SELECT sensor_id, ${ROLLUP_AGGREGATES} FROM ${table}
       WHERE sensor_id IN (${placeholdersFor(ids)}) AND bucket_start >= ? AND bucket_start < ? GROUP BY sensor_id`,
      [...ids, from, to],
    );
    for (const row of rows) out.set(Number(row.sensor_id), toBucket(row));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The rollup rows as backup and restore read and write them (the backup's snapshot, the restore's
// transaction).

/** The rollup tables backup and restore carry. */
export type RollupTier = 'rollup_hourly' | 'rollup_daily';

/** A bucket of one sensor as a restore stores it: sensor id, start, count, up, latency sum, min, max. */
export type SensorRollupBucket = [number, number, number, number, number, number | null, number | null];

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

// ---------------------------------------------------------------------------------------------
// Set-based writes: PostgreSQL's result batch, the rollups and the pruning of many sensors at once.

/** A typed VALUES row of a result (PostgreSQL would read untyped NULLs as text). */
const RESULT_VALUES_ROW = '(?::integer, ?::bigint, ?::boolean, ?::integer, ?::double precision, ?::text)';
const RESULTS_PER_STATEMENT = Math.floor(60_000 / 6);

/**
 * PostgreSQL's result batch: one multi-row statement per chunk (under the 65,535 parameters of a
 * statement). A sensor deleted while its result waited is skipped; a result already stored (a
 * retried batch whose commit went through) is not stored twice. Every result of a batch names the
 * same prober, so `instance` is one parameter of the statement, not one per row.
 */
export async function insertResultsBatch(
  tx: SqlExecutor,
  results: StoredResult[],
  instance: string,
): Promise<void> {
  for (let at = 0; at < results.length; at += RESULTS_PER_STATEMENT) {
    const chunk = results.slice(at, at + RESULTS_PER_STATEMENT);
    await tx.run(
      `INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message, instance)
       SELECT v.sensor_id, v.ts, v.success, v.status_code, v.latency_ms, v.message, CAST(? AS TEXT)
       FROM (VALUES ${chunk.map(() => RESULT_VALUES_ROW).join(', ')})
         AS v(sensor_id, ts, success, status_code, latency_ms, message)
       WHERE EXISTS (SELECT 1 FROM sensors s WHERE s.id = v.sensor_id)
       ON CONFLICT (sensor_id, ts) DO NOTHING`,
      [
        instance,
        ...chunk.flatMap((r) => [r.sensorId, r.ts, r.success, r.statusCode, r.latencyMs, r.message]),
      ],
    );
  }
}

/** One rollup step: `from`'s rows summarised into `into`'s buckets of `bucketMs`. */
interface RollupStep {
  into: string;
  from: string;
  time: string;
  bucketMs: number;
  aggregates: string;
}

const HOURLY: RollupStep = {
  into: 'rollup_hourly',
  from: 'probe_results',
  time: 'ts',
  bucketMs: HOUR_MS,
  aggregates: PORTABLE_RAW_AGGREGATES,
};
const DAILY: RollupStep = {
  into: 'rollup_daily',
  from: 'rollup_hourly',
  time: 'bucket_start',
  bucketMs: DAY_MS,
  aggregates: ROLLUP_AGGREGATES,
};

/** Summarises the sensors' rows in [from, to) into buckets, in one statement inside `tx`. */
async function summarise(
  tx: SqlExecutor,
  step: RollupStep,
  sensorIds: number[],
  from: number,
  to: number,
): Promise<number> {
  if (sensorIds.length === 0) return 0;
  const bucket = `${step.time} - ${step.time} % ${step.bucketMs}`;
  return (
    await tx.run(
      `INSERT INTO ${step.into} (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
       SELECT sensor_id, ${bucket}, ${step.aggregates} FROM ${step.from}
       WHERE sensor_id IN (${placeholdersFor(sensorIds)}) AND ${step.time} >= ? AND ${step.time} < ?
       GROUP BY sensor_id, ${bucket}
       ON CONFLICT (sensor_id, bucket_start) DO UPDATE SET ${REPLACE_BUCKET}`,
      [...sensorIds, from, to],
    )
  ).changes;
}

/** Deletes the sensors' rows of `table` older than `before` inside `tx`; rows deleted. */
async function prune(
  tx: SqlExecutor,
  table: string,
  time: string,
  sensorIds: number[],
  before: number,
): Promise<number> {
  if (sensorIds.length === 0) return 0;
  return (
    await tx.run(`DELETE FROM ${table} WHERE sensor_id IN (${placeholdersFor(sensorIds)}) AND ${time} < ?`, [
      ...sensorIds,
      before,
    ])
  ).changes;
}

export const summariseHours = (tx: SqlExecutor, sensorIds: number[], from: number, to: number) =>
  summarise(tx, HOURLY, sensorIds, from, to);
export const summariseDays = (tx: SqlExecutor, sensorIds: number[], from: number, to: number) =>
  summarise(tx, DAILY, sensorIds, from, to);
export const pruneRaw = (tx: SqlExecutor, sensorIds: number[], before: number) =>
  prune(tx, 'probe_results', 'ts', sensorIds, before);
export const pruneHourly = (tx: SqlExecutor, sensorIds: number[], before: number) =>
  prune(tx, 'rollup_hourly', 'bucket_start', sensorIds, before);
