import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { RECENT_OUTCOMES, type HistoryTier } from '@monitor/contracts';
import { streakBoundary, type Bucket, type StoredHistory } from '@monitor/domain';
import { DAY_MS, HOUR_MS } from '@monitor/domain';
import { DataSource } from 'typeorm';
import { like } from '../core/database/like-pattern';
import { sqliteHandle } from '../core/database/sqlite-handle';
import { connectionOf, type SyncTx } from '../core/database/unit-of-work';
import type { StoredResult } from './result-writer.service';

export interface ResultRow {
  ts: number;
  success: number;
  status_code: number | null;
  latency_ms: number | null;
  message: string;
}

interface BucketRow {
  start: number;
  count: number;
  up: number;
  latency_sum: number;
  latency_min: number | null;
  latency_max: number | null;
}

export const toBucket = (row: BucketRow): Bucket => ({
  count: row.count,
  up: row.up,
  latencySum: row.latency_sum,
  latencyMin: row.latency_min,
  latencyMax: row.latency_max,
});

/** Latency statistics cover successful samples only (see libs/domain rollup-bucket). */
const RAW_AGGREGATES = `count(*) AS count, coalesce(sum(success), 0) AS up,
  coalesce(sum(CASE WHEN success THEN latency_ms END), 0) AS latency_sum,
  min(CASE WHEN success THEN latency_ms END) AS latency_min,
  max(CASE WHEN success THEN latency_ms END) AS latency_max`;
const ROLLUP_AGGREGATES = `coalesce(sum(count), 0) AS count, coalesce(sum(up), 0) AS up,
  coalesce(sum(latency_sum), 0) AS latency_sum, min(latency_min) AS latency_min,
  max(latency_max) AS latency_max`;

const TABLE: Record<HistoryTier, { table: string; time: string; aggregates: string }> = {
  raw: { table: 'probe_results', time: 'ts', aggregates: RAW_AGGREGATES },
  hourly: { table: 'rollup_hourly', time: 'bucket_start', aggregates: ROLLUP_AGGREGATES },
  daily: { table: 'rollup_daily', time: 'bucket_start', aggregates: ROLLUP_AGGREGATES },
};

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
 * Every history statement, prepared once. Each reads one sensor's rows through the (sensor_id, time)
 * primary key, so its cost follows the window asked for, not the size of the table.
 */
class HistoryStatements {
  readonly recent: Database.Statement;
  readonly totals = new Map<HistoryTier, Database.Statement>();
  readonly buckets = new Map<HistoryTier, Database.Statement>();
  readonly oldestDaily: Database.Statement;
  readonly hourlyTotals: Database.Statement;
  readonly summariseHours: Database.Statement;
  readonly summariseDays: Database.Statement;
  readonly pruneRaw: Database.Statement;
  readonly pruneHourly: Database.Statement;
  readonly oldestRaw: Database.Statement;
  readonly oldestHourly: Database.Statement;
  readonly insertResult: Database.Statement;
  readonly lastSuccess: Database.Statement;
  readonly streakSince: Database.Statement;
  readonly first: Database.Statement;
  readonly last: Database.Statement;
  readonly rows: Database.Statement;
  readonly summarised: Database.Statement;

  constructor(db: Database.Database) {
    this.recent = db.prepare(
      `SELECT ts, success, status_code, latency_ms, message FROM probe_results
       WHERE sensor_id = ? ORDER BY ts DESC LIMIT ?`,
    );
    for (const [tier, { table, time, aggregates }] of Object.entries(TABLE) as [
      HistoryTier,
      (typeof TABLE)['raw'],
    ][]) {
      this.totals.set(
        tier,
        db.prepare(`SELECT ${aggregates} FROM ${table} WHERE sensor_id = ? AND ${time} >= ? AND ${time} < ?`),
      );
      this.buckets.set(
        tier,
        db.prepare(
          `SELECT ${time} - ${time} % @step AS start, ${aggregates} FROM ${table}
           WHERE sensor_id = @sensor AND ${time} >= @from AND ${time} < @to GROUP BY start`,
        ),
      );
    }
    this.hourlyTotals = db.prepare(
      `SELECT sensor_id, sum(count) AS count, sum(up) AS up FROM rollup_hourly
       WHERE bucket_start >= ? AND bucket_start < ? GROUP BY sensor_id`,
    );
    this.oldestDaily = db.prepare(
      'SELECT bucket_start AS ts FROM rollup_daily WHERE sensor_id = ? ORDER BY bucket_start LIMIT 1',
    );
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
    // The oldest row over all sensors, found with one index probe per sensor rather than a scan.
    this.oldestRaw = db
      .prepare(
        `SELECT min((SELECT ts FROM probe_results p WHERE p.sensor_id = s.id ORDER BY ts LIMIT 1)) FROM sensors s`,
      )
      .pluck();
    this.oldestHourly = db
      .prepare(
        `SELECT min((SELECT bucket_start FROM rollup_hourly h WHERE h.sensor_id = s.id ORDER BY bucket_start LIMIT 1))
         FROM sensors s`,
      )
      .pluck();
    // A sensor deleted while its result waited in the batch is skipped rather than failing it.
    this.insertResult = db.prepare(
      `INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message)
       SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sensors WHERE id = ?)`,
    );
    this.lastSuccess = db.prepare(
      'SELECT max(ts) AS ts FROM probe_results WHERE sensor_id = ? AND success = 1',
    );
    this.streakSince = db.prepare(
      'SELECT count(*) AS n, min(ts) AS first FROM probe_results WHERE sensor_id = ? AND ts > ?',
    );
    this.first = db.prepare('SELECT ts FROM probe_results WHERE sensor_id = ? ORDER BY ts LIMIT 1').pluck();
    this.last = db
      .prepare('SELECT ts FROM probe_results WHERE sensor_id = ? ORDER BY ts DESC LIMIT 1')
      .pluck();
    this.rows = db
      .prepare('SELECT count(*) FROM probe_results WHERE sensor_id = ? AND ts >= ? AND ts < ?')
      .pluck();
    this.summarised = db
      .prepare(
        'SELECT coalesce(sum(count), 0) FROM rollup_hourly WHERE sensor_id = ? AND bucket_start >= ? AND bucket_start < ?',
      )
      .pluck();
  }
}

/**
 * The only code that reads or writes `probe_results`, `rollup_hourly` and `rollup_daily`. Reads
 * and writes are synchronous prepared statements on the shared connection: the result batches,
 * the runtime's rebuild and the maintenance pass are hot paths. Writes named `…Now` run inside the
 * caller's transaction (UnitOfWork) or on their own.
 */
@Injectable()
export class HistoryRepository {
  private prepared?: HistoryStatements;

  constructor(private readonly dataSource: DataSource) {}

  private get q(): HistoryStatements {
    return (this.prepared ??= new HistoryStatements(sqliteHandle(this.dataSource)));
  }

  recentResults(sensorId: number, limit: number): ResultRow[] {
    return this.q.recent.all(sensorId, limit) as ResultRow[];
  }

  total(tier: HistoryTier, sensorId: number, from: number, to: number): Bucket {
    return toBucket({
      start: from,
      ...(this.q.totals.get(tier)!.get(sensorId, from, to) as Omit<BucketRow, 'start'>),
    });
  }

  /** Buckets of `step` milliseconds keyed by their start; steps without rows are absent. */
  bucketed(tier: HistoryTier, sensorId: number, from: number, to: number, step: number): Map<number, Bucket> {
    const rows = this.q.buckets.get(tier)!.all({ sensor: sensorId, from, to, step }) as BucketRow[];
    return new Map(rows.map((row) => [row.start, toBucket(row)]));
  }

  oldestDailyBucket(sensorId: number): number | null {
    return (this.q.oldestDaily.get(sensorId) as { ts: number } | undefined)?.ts ?? null;
  }

  /** Every sensor's results counted over the hourly buckets in [from, to). */
  hourlyTotalsOfAll(from: number, to: number): { sensor_id: number; count: number; up: number }[] {
    return this.q.hourlyTotals.all(from, to) as { sensor_id: number; count: number; up: number }[];
  }

  /** Stores one result under `ts` (a deleted sensor's result is skipped). */
  insertResultNow(r: StoredResult, ts: number): void {
    this.q.insertResult.run(
      r.sensorId,
      ts,
      r.success ? 1 : 0,
      r.statusCode,
      r.latencyMs,
      r.message,
      r.sensorId,
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
  oldestRaw(): number | null {
    return (this.q.oldestRaw.get() as number | null | undefined) ?? null;
  }

  oldestHourly(): number | null {
    return (this.q.oldestHourly.get() as number | null | undefined) ?? null;
  }

  /**
   * One sensor's stored results as the runtime's rebuild needs them: the streak since the last
   * success or the newest incident resolution (`lastResolvedAt`), the newest result and the recent
   * outcomes. Every query is a primary-key range scan.
   */
  sensorHistory(sensorId: number, lastResolvedAt: number | null = null): SensorHistory {
    const q = this.q;
    const recent = q.recent.all(sensorId, RECENT_OUTCOMES) as RecentRow[];
    const newest = recent[0];
    if (!newest) return { history: { newest: null, trailingFailures: 0, streakStartedAt: null }, recent };
    const stored = { at: newest.ts, success: newest.success === 1, message: newest.message };
    if (newest.success) {
      return { history: { newest: stored, trailingFailures: 0, streakStartedAt: null }, recent };
    }
    const { ts: lastOk } = q.lastSuccess.get(sensorId) as { ts: number | null };
    const boundary = streakBoundary(lastOk, lastResolvedAt);
    const { n, first } = q.streakSince.get(sensorId, boundary ?? -1) as { n: number; first: number | null };
    return { history: { newest: stored, trailingFailures: n, streakStartedAt: first }, recent };
  }

  /** The first and last stored result of a sensor, or null when it has none. */
  resultSpan(sensorId: number): { first: number; last: number } | null {
    const first = this.q.first.get(sensorId) as number | undefined;
    if (first === undefined) return null;
    return { first, last: this.q.last.get(sensorId) as number };
  }

  /** Raw results of a sensor in [from, to), counted row by row. */
  countRows(sensorId: number, from: number, to: number): number {
    return this.q.rows.get(sensorId, from, to) as number;
  }

  /** Results of a sensor in [from, to) as its hourly buckets count them. */
  countSummarised(sensorId: number, from: number, to: number): number {
    return this.q.summarised.get(sensorId, from, to) as number;
  }

  /**
   * Per sensor, its newest raw result in [from, to] whose message contains the LIKE `pattern`;
   * newest first, with the sensor's name joined in (the search is about results).
   */
  async searchMessages(pattern: string, from: number, to: number, limit: number): Promise<ResultSearchRow[]> {
    return (await this.dataSource.query(
      `SELECT r.sensor_id, s.name AS sensor_name, r.ts, r.success, r.message
       FROM (SELECT sensor_id, max(ts) AS ts FROM probe_results
             WHERE ts >= ? AND ts <= ? AND ${like('message')}
             GROUP BY sensor_id) newest
       JOIN probe_results r ON r.sensor_id = newest.sensor_id AND r.ts = newest.ts
       JOIN sensors s ON s.id = r.sensor_id
       ORDER BY r.ts DESC, r.sensor_id LIMIT ?`,
      [from, to, pattern, limit],
    )) as ResultSearchRow[];
  }

  /** Stores invented results (sample data) inside the caller's transaction. */
  insertSampleResults(tx: SyncTx, sensorId: number, results: Omit<StoredResult, 'sensorId'>[]): void {
    const insert = connectionOf(tx).prepare(
      'INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const r of results)
      insert.run(sensorId, r.ts, r.success ? 1 : 0, r.statusCode, r.latencyMs, r.message);
  }

  /** How many results the given sensors have. */
  countResultsOf(tx: SyncTx, sensorIds: number[]): number {
    const count = connectionOf(tx).prepare('SELECT count(*) FROM probe_results WHERE sensor_id = ?').pluck();
    return sensorIds.reduce((sum, id) => sum + (count.get(id) as number), 0);
  }
}
