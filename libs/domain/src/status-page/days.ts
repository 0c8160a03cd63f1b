import type { PublicDay } from '@monitor/contracts';
import { DAY_MS, HOUR_MS } from '../history/history-range';
import { bucketStats, emptyBucket, mergeBuckets, type Bucket } from '../history/rollup-bucket';

/** An outage of a sensor; open when `resolvedAt` is null. */
export interface OutageSpan {
  startedAt: number;
  resolvedAt: number | null;
}

/** One sensor's stored history as the page needs it. */
export interface SensorRollups {
  /** Daily buckets keyed by their start (UTC midnight); days without data are absent. */
  daily: ReadonlyMap<number, Bucket>;
  /** Today's hourly buckets merged (today has no daily bucket yet). */
  today: Bucket;
  /** The last 24 full hours' hourly buckets merged. */
  lastDay: Bucket;
  outages: readonly OutageSpan[];
}

export const startOfUtcDay = (ms: number): number => ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);

/** The window the last 24 full hours cover, as the summary's uptime reads it. */
export function lastDayWindow(now: number): { from: number; to: number } {
  const to = now - (now % HOUR_MS);
  return { from: to - DAY_MS, to };
}

/** The first day (UTC midnight) of a history of `days` days ending today. */
export const firstDayOf = (now: number, days: number): number => startOfUtcDay(now) - (days - 1) * DAY_MS;

const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const overlaps = (outage: OutageSpan, from: number, to: number): boolean =>
  outage.startedAt < to && (outage.resolvedAt === null || outage.resolvedAt > from);

function bucketOfDay(rollups: SensorRollups, day: number, today: number): Bucket | undefined {
  return day === today ? rollups.today : rollups.daily.get(day);
}

/** One entry per day of `days` days ending today (UTC), oldest first. */
export function dayEntries(rollups: SensorRollups, now: number, days: number): PublicDay[] {
  const today = startOfUtcDay(now);
  const entries: PublicDay[] = [];
  for (let day = firstDayOf(now, days); day <= today; day += DAY_MS) {
    const bucket = bucketOfDay(rollups, day, today) ?? emptyBucket();
    const uptime = bucketStats(bucket).uptime;
    const down = rollups.outages.some((o) => overlaps(o, day, day + DAY_MS));
    const worst = down ? 'down' : bucket.count === 0 ? null : bucket.up < bucket.count ? 'degraded' : 'up';
    entries.push({ date: isoDate(day), uptime, worst });
  }
  return entries;
}

/** Percent up over the last `days` days: the daily buckets before today plus today's hours. */
export function uptimeOverDays(rollups: SensorRollups, now: number, days: number): number | null {
  const today = startOfUtcDay(now);
  let total = rollups.today;
  for (let day = firstDayOf(now, days); day < today; day += DAY_MS) {
    const bucket = rollups.daily.get(day);
    if (bucket) total = mergeBuckets(total, bucket);
  }
  return bucketStats(total).uptime;
}

export interface UptimeFigures {
  d1: number | null;
  d30: number | null;
  d90: number | null;
}

export function uptimeFigures(rollups: SensorRollups, now: number): UptimeFigures {
  return {
    d1: bucketStats(rollups.lastDay).uptime,
    d30: uptimeOverDays(rollups, now, 30),
    d90: uptimeOverDays(rollups, now, 90),
  };
}

/** The average latency of the last 24 full hours in whole milliseconds; null without a success. */
export const averageLatencyMs = (rollups: SensorRollups): number | null => {
  const avg = bucketStats(rollups.lastDay).avgMs;
  return avg === null ? null : Math.round(avg);
};
