import type Database from 'better-sqlite3';
import { streakBoundary, type StoredHistory } from '@monitor/domain';
import { RECENT_OUTCOMES, SPARKLINE_POINTS, type SparkPoint } from '@monitor/contracts';

export const SPARKLINE_LENGTH = SPARKLINE_POINTS;

/**
 * Prepared reads of one sensor's stored results, used once per sensor at start: the streak since
 * the last success or the newest incident resolution, the newest result, the sparkline and
 * the recent outcomes. Every
 * query is a primary-key range scan.
 */
export class SensorHistoryReader {
  private readonly lastSuccess: Database.Statement;
  private readonly streakSince: Database.Statement;
  private readonly newest: Database.Statement;

  constructor(db: Database.Database) {
    this.lastSuccess = db.prepare(
      'SELECT max(ts) AS ts FROM probe_results WHERE sensor_id = ? AND success = 1',
    );
    this.streakSince = db.prepare(
      'SELECT count(*) AS n, min(ts) AS first FROM probe_results WHERE sensor_id = ? AND ts > ?',
    );
    this.newest = db.prepare(
      'SELECT ts, success, status_code, latency_ms, message FROM probe_results WHERE sensor_id = ? ORDER BY ts DESC LIMIT ?',
    );
  }

  /** `lastResolvedAt`: when the sensor's newest resolved incident was resolved (bounds the streak). */
  read(
    sensorId: number,
    lastResolvedAt: number | null = null,
  ): {
    history: Omit<StoredHistory, 'enabled' | 'openIncident' | 'lastAlertAt' | 'lastResolvedAt'>;
    recent: RecentRow[];
  } {
    const recent = this.newest.all(sensorId, RECENT_OUTCOMES) as RecentRow[];
    const newest = recent[0];
    if (!newest) return { history: { newest: null, trailingFailures: 0, streakStartedAt: null }, recent };
    const stored = { at: newest.ts, success: newest.success === 1, message: newest.message };
    if (newest.success) {
      return { history: { newest: stored, trailingFailures: 0, streakStartedAt: null }, recent };
    }
    const { ts: lastOk } = this.lastSuccess.get(sensorId) as { ts: number | null };
    const boundary = streakBoundary(lastOk, lastResolvedAt);
    const { n, first } = this.streakSince.get(sensorId, boundary ?? -1) as {
      n: number;
      first: number | null;
    };
    return { history: { newest: stored, trailingFailures: n, streakStartedAt: first }, recent };
  }
}

export interface RecentRow {
  ts: number;
  success: number;
  status_code: number | null;
  latency_ms: number | null;
  message: string;
}

export const toSparkPoint = (row: RecentRow): SparkPoint => ({
  ts: new Date(row.ts).toISOString(),
  success: row.success === 1,
  latency_ms: row.latency_ms,
});

/** Outcomes as the summary's `recent` shows them: one character each, `1` success, `0` failure. */
export const outcomeChar = (success: boolean): string => (success ? '1' : '0');
