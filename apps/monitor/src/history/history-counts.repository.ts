import { HOUR_MS } from '@monitor/domain';
import type { SqlExecutor } from '../core/database/sql-client';

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
  for (let at = 0; at < sensorIds.length; at += SENSORS_PER_STATEMENT) {
    const ids = sensorIds.slice(at, at + SENSORS_PER_STATEMENT);
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
