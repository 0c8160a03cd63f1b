import type { HistoryTier, SeriesPoint } from '@monitor/contracts';
import { alignDown, DAY_MS, TIER_UNIT_MS } from './history-range';
import { bucketStats, type Bucket } from './rollup-bucket';

/** Charts get at most this many points, whatever the range. */
export const MAX_SERIES_POINTS = 400;

const MINUTE_MS = 60_000;
const NICE_STEPS_MS = [1, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080, 20160, 40320].map(
  (minutes) => minutes * MINUTE_MS,
);

/**
 * The width of one chart point: the smallest round step that keeps the window within
 * MAX_SERIES_POINTS, is a whole number of the tier's buckets, and (for raw results) is no shorter
 * than the sensor's interval, so a point is never empty merely because no probe was due.
 */
export function chooseStep(windowMs: number, tier: HistoryTier, intervalMs = 0): number {
  const floor = Math.max(TIER_UNIT_MS[tier], tier === 'raw' ? intervalMs : 0, windowMs / MAX_SERIES_POINTS);
  const nice = NICE_STEPS_MS.find((step) => step >= floor);
  return nice ?? Math.ceil(floor / DAY_MS) * DAY_MS;
}

/** Starts of the points covering [from, to), each aligned to the step. */
export function pointStarts(from: number, to: number, step: number): number[] {
  const starts: number[] = [];
  for (let start = alignDown(from, step); start < to; start += step) starts.push(start);
  return starts;
}

/**
 * One point per step; steps without a bucket are empty (count 0 and nulls, never zeros).
 * `buckets` is keyed by point start.
 */
export function fillSeries(
  buckets: ReadonlyMap<number, Bucket>,
  from: number,
  to: number,
  step: number,
): SeriesPoint[] {
  return pointStarts(from, to, step).map((start) => {
    const bucket = buckets.get(start);
    const ts = new Date(start).toISOString();
    if (!bucket || bucket.count === 0)
      return { ts, count: 0, up: null, uptime: null, avg_ms: null, min_ms: null, max_ms: null };
    const stats = bucketStats(bucket);
    return {
      ts,
      count: bucket.count,
      up: bucket.up,
      uptime: stats.uptime,
      avg_ms: stats.avgMs,
      min_ms: stats.minMs,
      max_ms: stats.maxMs,
    };
  });
}
