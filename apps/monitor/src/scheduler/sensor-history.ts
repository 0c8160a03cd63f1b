import { SPARKLINE_POINTS, type SparkPoint } from '@monitor/contracts';
import type { RecentRow } from '../history/history.repository';

export const SPARKLINE_LENGTH = SPARKLINE_POINTS;

export type { RecentRow };

export const toSparkPoint = (row: RecentRow): SparkPoint => ({
  ts: new Date(row.ts).toISOString(),
  success: row.success === 1,
  latency_ms: row.latency_ms,
});

/** Outcomes as the summary's `recent` shows them: one character each, `1` success, `0` failure. */
export const outcomeChar = (success: boolean): string => (success ? '1' : '0');
