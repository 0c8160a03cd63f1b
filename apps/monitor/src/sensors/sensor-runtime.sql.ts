import type { SqlExecutor } from '../core/database/sql-client';
import type { SensorRuntimeColumns } from './sensor-runtime-columns';

/*
 * The sensors' runtime columns (status, message, last check, streak, …) as the result batch and
 * the state change write them; part of the sensors feature's storage.
 */

export const RUNTIME_UPDATE = `UPDATE sensors SET status = ?, message = ?, last_checked_at = ?, latency_ms = ?, streak = ?,
  status_changed_at = coalesce(?, status_changed_at), last_alert_at = ? WHERE id = ?`;

export const runtimeParams = (id: number, s: SensorRuntimeColumns): unknown[] => [
  s.status,
  s.message,
  s.lastCheckedAt,
  s.latencyMs,
  s.streak,
  s.statusChangedAt,
  s.lastAlertAt,
  id,
];

/** Placeholders of a PostgreSQL VALUES row of the runtime columns, typed (untyped NULLs would be text). */
const RUNTIME_VALUES_ROW =
  '(?::integer, ?::text, ?::text, ?::bigint, ?::double precision, ?::integer, ?::bigint, ?::bigint)';
const RUNTIME_PARAMS_PER_ROW = 8;
const MAX_PARAMS = 60_000;

/** A sensor's runtime columns inside `tx`. A deleted sensor changes nothing. */
export async function writeRuntime(tx: SqlExecutor, id: number, s: SensorRuntimeColumns): Promise<void> {
  await tx.run(RUNTIME_UPDATE, runtimeParams(id, s));
}

/** Many sensors' runtime columns in one statement per chunk (PostgreSQL's result batch). */
export async function writeRuntimeBatch(
  tx: SqlExecutor,
  entries: [number, SensorRuntimeColumns][],
): Promise<void> {
  const perChunk = Math.floor(MAX_PARAMS / RUNTIME_PARAMS_PER_ROW);
  for (let at = 0; at < entries.length; at += perChunk) {
    const chunk = entries.slice(at, at + perChunk);
    await tx.run(
      `UPDATE sensors s SET status = v.status, message = v.message, last_checked_at = v.last_checked_at,
         latency_ms = v.latency_ms, streak = v.streak,
         status_changed_at = coalesce(v.status_changed_at, s.status_changed_at), last_alert_at = v.last_alert_at
       FROM (VALUES ${chunk.map(() => RUNTIME_VALUES_ROW).join(', ')})
         AS v(id, status, message, last_checked_at, latency_ms, streak, status_changed_at, last_alert_at)
       WHERE s.id = v.id`,
      chunk.flatMap(([id, r]) => [
        id,
        r.status,
        r.message,
        r.lastCheckedAt,
        r.latencyMs,
        r.streak,
        r.statusChangedAt,
        r.lastAlertAt,
      ]),
    );
  }
}
