import type Database from 'better-sqlite3';
import type { HistoryTier } from '@monitor/contracts';
import type { Bucket } from '@monitor/domain';
import { DAY_MS, HOUR_MS } from '@monitor/domain';

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

/**
 * Every history statement, prepared once. Each reads one sensor's rows through the (sensor_id, time)
 * primary key, so its cost follows the window asked for, not the size of the table.
 */
export class HistoryQueries {
  private readonly recent: Database.Statement;
  private readonly totals = new Map<HistoryTier, Database.Statement>();
  private readonly buckets = new Map<HistoryTier, Database.Statement>();
  private readonly oldestDaily: Database.Statement;
  private readonly hourlyTotals: Database.Statement;
  readonly summariseHours: Database.Statement;
  readonly summariseDays: Database.Statement;
  readonly pruneRaw: Database.Statement;
  readonly pruneHourly: Database.Statement;
  readonly oldestRaw: Database.Statement;
  readonly oldestHourly: Database.Statement;
  readonly sensorIds: Database.Statement;

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
    this.sensorIds = db.prepare('SELECT id FROM sensors ORDER BY id').pluck();
  }

  recentResults(sensorId: number, limit: number): ResultRow[] {
    return this.recent.all(sensorId, limit) as ResultRow[];
  }

  total(tier: HistoryTier, sensorId: number, from: number, to: number): Bucket {
    return toBucket({
      start: from,
      ...(this.totals.get(tier)!.get(sensorId, from, to) as Omit<BucketRow, 'start'>),
    });
  }

  /** Buckets of `step` milliseconds keyed by their start; steps without rows are absent. */
  bucketed(tier: HistoryTier, sensorId: number, from: number, to: number, step: number): Map<number, Bucket> {
    const rows = this.buckets.get(tier)!.all({ sensor: sensorId, from, to, step }) as BucketRow[];
    return new Map(rows.map((row) => [row.start, toBucket(row)]));
  }

  oldestDailyBucket(sensorId: number): number | null {
    return (this.oldestDaily.get(sensorId) as { ts: number } | undefined)?.ts ?? null;
  }

  /** Every sensor's results counted over the hourly buckets in [from, to). */
  hourlyTotalsOfAll(from: number, to: number): { sensor_id: number; count: number; up: number }[] {
    return this.hourlyTotals.all(from, to) as { sensor_id: number; count: number; up: number }[];
  }
}
