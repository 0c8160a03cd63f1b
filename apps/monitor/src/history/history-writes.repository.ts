import { DAY_MS, HOUR_MS } from '@monitor/domain';
import type { SqlExecutor } from '../core/database/sql-client';
import type { StoredResult } from './stored-result';

/*
 * The history tables' set-based writes in one SQL text for both backends: PostgreSQL's result
 * batch, the rollups and the pruning of many sensors at once. HistoryRepository exposes them.
 */

/** RAW_AGGREGATES for both backends (PostgreSQL cannot sum booleans). */
export const PORTABLE_RAW_AGGREGATES = `count(*) AS count, coalesce(sum(CASE WHEN success THEN 1 ELSE 0 END), 0) AS up,
  coalesce(sum(CASE WHEN success THEN latency_ms END), 0) AS latency_sum,
  min(CASE WHEN success THEN latency_ms END) AS latency_min,
  max(CASE WHEN success THEN latency_ms END) AS latency_max`;
const REPLACE_BUCKET = `count = excluded.count, up = excluded.up, latency_sum = excluded.latency_sum,
  latency_min = excluded.latency_min, latency_max = excluded.latency_max`;
const ROLLUP_AGGREGATES = `coalesce(sum(count), 0) AS count, coalesce(sum(up), 0) AS up,
  coalesce(sum(latency_sum), 0) AS latency_sum, min(latency_min) AS latency_min,
  max(latency_max) AS latency_max`;
/** A typed VALUES row of a result (PostgreSQL would read untyped NULLs as text). */
const RESULT_VALUES_ROW = '(?::integer, ?::bigint, ?::boolean, ?::integer, ?::double precision, ?::text)';
const RESULTS_PER_STATEMENT = Math.floor(60_000 / 6);

const marks = (ids: number[]): string => ids.map(() => '?').join(', ');

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
       WHERE sensor_id IN (${marks(sensorIds)}) AND ${step.time} >= ? AND ${step.time} < ?
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
    await tx.run(`DELETE FROM ${table} WHERE sensor_id IN (${marks(sensorIds)}) AND ${time} < ?`, [
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
