import { Injectable } from '@nestjs/common';
import { RECENT_OUTCOMES, type HistoryTier } from '@monitor/contracts';
import { streakBoundary, type Bucket, type StoredHistory } from '@monitor/domain';
import { DataSource } from 'typeorm';
import { containedLength } from '../core/database/like-pattern';
import { sqliteHandle } from '../core/database/sqlite-handle';
import type { Dialect } from '../core/database/dialect';
import {
  boolOf,
  likeFragment,
  sqlClientFor,
  type SqlClient,
  type SqlExecutor,
} from '../core/database/sql-client';
import { countWhereIn } from '../core/database/where-in';
import {
  dailyBucketsOf,
  insertResultsBatch,
  pruneHourly,
  pruneRaw,
  resultStats,
  SqliteStatements,
  summariseDays,
  summariseHours,
  TIERS,
  toBucket,
  totalsOf,
  type BucketRow,
  type ResultStats,
} from './history.sql';
import type { StoredResult } from './stored-result';

export interface ResultRow {
  ts: number;
  success: number;
  status_code: number | null;
  latency_ms: number | null;
  message: string;
  /** The instance that probed it; '' in single-instance mode. */
  instance: string;
}

/** A result row with `success` as 1/0 on both backends. */
const resultRow = (row: ResultRow): ResultRow => ({
  ...row,
  ts: Number(row.ts),
  success: boolOf(row.success) ? 1 : 0,
});

/** A result found by the global search. */
export interface ResultSearchRow {
  sensor_id: number;
  sensor_name: string;
  ts: number;
  success: number;
  message: string;
}

/** What the runtime's rebuild reads of one sensor's stored results. */
export interface SensorHistory {
  history: Omit<StoredHistory, 'enabled' | 'openIncident' | 'lastAlertAt' | 'lastResolvedAt'>;
  recent: RecentRow[];
}

export interface RecentRow {
  ts: number;
  success: number;
  status_code: number | null;
  latency_ms: number | null;
  message: string;
}

/**
 * The history feature's repository: with its SQL text (history.sql.ts), the only code that reads
 * or writes `probe_results`, `rollup_hourly` and `rollup_daily`. SQLite's reads and writes are synchronous prepared statements on the shared connection: the result batches,
 * the runtime's rebuild and the maintenance pass are hot paths. Writes named `…Now` run inside the
 * caller's transaction (UnitOfWork) or on their own.
 */
@Injectable()
export class HistoryRepository {
  private prepared?: SqliteStatements;

  constructor(private readonly dataSource: DataSource) {}

  private get q(): SqliteStatements {
    return (this.prepared ??= new SqliteStatements(sqliteHandle(this.dataSource)));
  }

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  get dialect(): Dialect {
    return this.sql.dialect;
  }

  async recentResults(sensorId: number, limit: number): Promise<ResultRow[]> {
    const rows = await this.sql.all<ResultRow>(
      `SELECT ts, success, status_code, latency_ms, message, instance FROM probe_results
       WHERE sensor_id = ? ORDER BY ts DESC LIMIT ?`,
      [sensorId, limit],
    );
    return rows.map(resultRow);
  }

  async total(tier: HistoryTier, sensorId: number, from: number, to: number): Promise<Bucket> {
    const { table, time, aggregates } = TIERS[tier];
    const row = await this.sql.get<Omit<BucketRow, 'start'>>(
      `SELECT ${aggregates} FROM ${table} WHERE sensor_id = ? AND ${time} >= ? AND ${time} < ?`,
      [sensorId, from, to],
    );
    return toBucket(row!);
  }

  /** Buckets of `step` milliseconds keyed by their start; steps without rows are absent. */
  async bucketed(
    tier: HistoryTier,
    sensorId: number,
    from: number,
    to: number,
    step: number,
  ): Promise<Map<number, Bucket>> {
    const { table, time, aggregates } = TIERS[tier];
    // The step is an integer the code chose, not input: inlined, so both backends group by one expression.
    const start = `${time} - ${time} % ${Math.trunc(step)}`;
    const rows = await this.sql.all<BucketRow>(
      `SELECT ${start} AS start, ${aggregates} FROM ${table}
       WHERE sensor_id = ? AND ${time} >= ? AND ${time} < ? GROUP BY ${start}`,
      [sensorId, from, to],
    );
    return new Map(rows.map((row) => [Number(row.start), toBucket(row)]));
  }

  async oldestDailyBucket(sensorId: number): Promise<number | null> {
    const row = await this.sql.get<{ ts: number }>(
      'SELECT bucket_start AS ts FROM rollup_daily WHERE sensor_id = ? ORDER BY bucket_start LIMIT 1',
      [sensorId],
    );
    return row ? Number(row.ts) : null;
  }

  /** The sensors' daily buckets in [from, to), per sensor keyed by the bucket's start. */
  dailyBucketsOf(
    sensorIds: readonly number[],
    from: number,
    to: number,
  ): Promise<Map<number, Map<number, Bucket>>> {
    return dailyBucketsOf(this.sql, sensorIds, from, to);
  }

  /** The sensors' hourly buckets in [from, to) merged, one bucket per sensor that has any. */
  hourlyTotalsOf(sensorIds: readonly number[], from: number, to: number): Promise<Map<number, Bucket>> {
    return totalsOf(this.sql, 'rollup_hourly', sensorIds, from, to);
  }

  /** The sensors' daily buckets in [from, to) merged, one bucket per sensor that has any. */
  dailyTotalsOf(sensorIds: readonly number[], from: number, to: number): Promise<Map<number, Bucket>> {
    return totalsOf(this.sql, 'rollup_daily', sensorIds, from, to);
  }

  /** Every sensor's results counted over the hourly buckets in [from, to). */
  async hourlyTotalsOfAll(
    from: number,
    to: number,
  ): Promise<{ sensor_id: number; count: number; up: number }[]> {
    const rows = await this.sql.all<{ sensor_id: number; count: number; up: number }>(
      `SELECT sensor_id, sum(count) AS count, sum(up) AS up FROM rollup_hourly
       WHERE bucket_start >= ? AND bucket_start < ? GROUP BY sensor_id`,
      [from, to],
    );
    return rows.map((r) => ({ sensor_id: Number(r.sensor_id), count: Number(r.count), up: Number(r.up) }));
  }

  /** Stores one result under `ts`, probed by `instance` (a deleted sensor's result is skipped). */
  insertResultNow(r: StoredResult, ts: number, instance: string): void {
    this.q.insertResult.run(
      r.sensorId,
      ts,
      r.success ? 1 : 0,
      r.statusCode,
      r.latencyMs,
      r.message,
      instance,
      r.sensorId,
    );
  }

  // Set-based writes for both backends (see history.sql.ts).
  insertResultsBatch(tx: SqlExecutor, results: StoredResult[], instance: string): Promise<void> {
    return insertResultsBatch(tx, results, instance);
  }

  summariseHours(tx: SqlExecutor, sensorIds: number[], from: number, to: number): Promise<number> {
    return summariseHours(tx, sensorIds, from, to);
  }

  summariseDays(tx: SqlExecutor, sensorIds: number[], from: number, to: number): Promise<number> {
    return summariseDays(tx, sensorIds, from, to);
  }

  pruneRaw(tx: SqlExecutor, sensorIds: number[], before: number): Promise<number> {
    return pruneRaw(tx, sensorIds, before);
  }

  pruneHourly(tx: SqlExecutor, sensorIds: number[], before: number): Promise<number> {
    return pruneHourly(tx, sensorIds, before);
  }

  /** Stores one result under `ts` inside `tx`, probed by `instance` (a deleted sensor's is skipped). */
  async insertResult(tx: SqlExecutor, r: StoredResult, ts: number, instance: string): Promise<void> {
    await tx.run(
      `INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message, instance)
       SELECT CAST(? AS INTEGER), CAST(? AS BIGINT), CAST(? AS BOOLEAN), CAST(? AS INTEGER),
         CAST(? AS DOUBLE PRECISION), CAST(? AS TEXT), CAST(? AS TEXT)
       WHERE EXISTS (SELECT 1 FROM sensors WHERE id = ?)`,
      [r.sensorId, ts, r.success, r.statusCode, r.latencyMs, r.message, instance, r.sensorId],
    );
  }

  /** Summarises one sensor's raw results in [from, to) into hourly buckets; buckets written. */
  summariseHoursNow(sensorId: number, from: number, to: number): number {
    return this.q.summariseHours.run(sensorId, from, to).changes;
  }

  /** Summarises one sensor's hourly buckets in [from, to) into daily buckets; buckets written. */
  summariseDaysNow(sensorId: number, from: number, to: number): number {
    return this.q.summariseDays.run(sensorId, from, to).changes;
  }

  pruneRawNow(sensorId: number, before: number): number {
    return this.q.pruneRaw.run(sensorId, before).changes;
  }

  pruneHourlyNow(sensorId: number, before: number): number {
    return this.q.pruneHourly.run(sensorId, before).changes;
  }

  /** The oldest raw result over all sensors (one index probe per sensor, not a scan). */
  async oldestRaw(): Promise<number | null> {
    const row = await this.sql.get<{ ts: number | null }>(
      `SELECT min((SELECT ts FROM probe_results p WHERE p.sensor_id = s.id ORDER BY ts LIMIT 1)) AS ts FROM sensors s`,
    );
    return row?.ts == null ? null : Number(row.ts);
  }

  async oldestHourly(): Promise<number | null> {
    const row = await this.sql.get<{ ts: number | null }>(
      `SELECT min((SELECT bucket_start FROM rollup_hourly h WHERE h.sensor_id = s.id ORDER BY bucket_start LIMIT 1))
         AS ts FROM sensors s`,
    );
    return row?.ts == null ? null : Number(row.ts);
  }

  /**
   * One sensor's stored results as the runtime's rebuild needs them: the streak since the last
   * success or the newest incident resolution (`lastResolvedAt`), the newest result and the recent
   * outcomes. Every query is a primary-key range scan.
   */
  async sensorHistory(sensorId: number, lastResolvedAt: number | null = null): Promise<SensorHistory> {
    const recent = await this.recentResults(sensorId, RECENT_OUTCOMES);
    const newest = recent[0];
    if (!newest) return { history: { newest: null, trailingFailures: 0, streakStartedAt: null }, recent };
    const stored = { at: newest.ts, success: newest.success === 1, message: newest.message };
    if (newest.success) {
      return { history: { newest: stored, trailingFailures: 0, streakStartedAt: null }, recent };
    }
    const lastOk = await this.sql.get<{ ts: number | null }>(
      'SELECT max(ts) AS ts FROM probe_results WHERE sensor_id = ? AND success = ?',
      [sensorId, true],
    );
    const boundary = streakBoundary(lastOk?.ts == null ? null : Number(lastOk.ts), lastResolvedAt);
    const streak = await this.sql.get<{ n: number; first: number | null }>(
      'SELECT count(*) AS n, min(ts) AS first FROM probe_results WHERE sensor_id = ? AND ts > ?',
      [sensorId, boundary ?? -1],
    );
    return {
      history: {
        newest: stored,
        trailingFailures: Number(streak?.n ?? 0),
        streakStartedAt: streak?.first == null ? null : Number(streak.first),
      },
      recent,
    };
  }

  /** The first and last stored result of a sensor, or null when it has none. */
  async resultSpan(sensorId: number): Promise<{ first: number; last: number } | null> {
    const row = await this.sql.get<{ first: number | null; last: number | null }>(
      `SELECT (SELECT ts FROM probe_results WHERE sensor_id = ? ORDER BY ts LIMIT 1) AS first,
         (SELECT ts FROM probe_results WHERE sensor_id = ? ORDER BY ts DESC LIMIT 1) AS last`,
      [sensorId, sensorId],
    );
    if (row?.first == null || row.last == null) return null;
    return { first: Number(row.first), last: Number(row.last) };
  }

  /** Raw results of a sensor in [from, to), counted row by row. */
  async countRows(sensorId: number, from: number, to: number): Promise<number> {
    const row = await this.sql.get<{ n: number }>(
      'SELECT count(*) AS n FROM probe_results WHERE sensor_id = ? AND ts >= ? AND ts < ?',
      [sensorId, from, to],
    );
    return Number(row?.n ?? 0);
  }

  /** Raw results of the sensors: count, oldest and newest (see resultStats). */
  resultStats(sensorIds: number[], hourlyThrough: number | null): Promise<ResultStats> {
    return resultStats(this.sql, sensorIds, hourlyThrough);
  }

  /**
   * Per sensor, its newest raw result in [from, to] whose message contains the LIKE `pattern`;
   * newest first, with the sensor's name joined in (the search is about results).
   */
  async searchMessages(pattern: string, from: number, to: number, limit: number): Promise<ResultSearchRow[]> {
    // A trigram index cannot serve fewer than 3 characters: PostgreSQL would read all of it, slower
    // than the scan (bench/pg-plans.mjs); an expression it does not cover keeps the plan a scan.
    const message =
      this.sql.dialect === 'postgres' && containedLength(pattern) < 3 ? "(message || '')" : 'message';
    const rows = await this.sql.all<ResultSearchRow>(
      `SELECT r.sensor_id, s.name AS sensor_name, r.ts, r.success, r.message
       FROM (SELECT sensor_id, max(ts) AS ts FROM probe_results
             WHERE ts >= ? AND ts <= ? AND ${likeFragment(this.sql.dialect, message)}
             GROUP BY sensor_id) newest
       JOIN probe_results r ON r.sensor_id = newest.sensor_id AND r.ts = newest.ts
       JOIN sensors s ON s.id = r.sensor_id
       ORDER BY r.ts DESC, r.sensor_id LIMIT ?`,
      [from, to, pattern, limit],
    );
    return rows.map((r) => ({ ...r, success: boolOf(r.success) ? 1 : 0 }));
  }

  /** Stores invented results (sample data) inside the caller's transaction. */
  async insertSampleResults(
    tx: SqlExecutor,
    sensorId: number,
    results: Omit<StoredResult, 'sensorId'>[],
  ): Promise<void> {
    const perChunk = 5000;
    for (let at = 0; at < results.length; at += perChunk) {
      const chunk = results.slice(at, at + perChunk);
      await tx.run(
        `INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message)
         VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
        chunk.flatMap((r) => [sensorId, r.ts, r.success, r.statusCode, r.latencyMs, r.message]),
      );
    }
  }

  /** How many results the given sensors have. */
  countResultsOf(tx: SqlExecutor, sensorIds: number[]): Promise<number> {
    return countWhereIn(tx, 'probe_results', 'sensor_id', sensorIds);
  }
}
