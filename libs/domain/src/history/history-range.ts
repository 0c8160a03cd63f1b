import { HISTORY_RANGES, type HistoryRange, type HistoryTier } from '@monitor/contracts';
import { InvalidInputError } from '../errors';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** Length of every bounded range; `all` has none. */
export const RANGE_MS: Record<Exclude<HistoryRange, 'all'>, number> = {
  '1h': HOUR_MS,
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
  '90d': 90 * DAY_MS,
  '1y': 365 * DAY_MS,
};

/** Bucket width of each tier; raw has none (a sample is its own bucket). */
export const TIER_UNIT_MS: Record<HistoryTier, number> = { raw: 1, hourly: HOUR_MS, daily: DAY_MS };

export interface Retention {
  rawMs: number;
  hourlyMs: number;
}

export function parseRange(value: unknown, parameter = 'range'): HistoryRange {
  if (typeof value === 'string' && (HISTORY_RANGES as readonly string[]).includes(value))
    return value as HistoryRange;
  const shown = typeof value === 'string' ? `"${value}"` : String(value);
  throw new InvalidInputError(`${parameter} must be one of ${HISTORY_RANGES.join(', ')}, not ${shown}`);
}

/**
 * The one tier a range reads: raw when the window fits the raw retention, hourly when it fits the
 * hourly retention, daily otherwise (`all` always daily). Tiers are never mixed.
 */
export function chooseTier(range: HistoryRange, retention: Retention): HistoryTier {
  if (range === 'all') return 'daily';
  const length = RANGE_MS[range];
  if (length <= retention.rawMs) return 'raw';
  if (length <= retention.hourlyMs) return 'hourly';
  return 'daily';
}

export const alignDown = (ts: number, unit: number): number => Math.floor(ts / unit) * unit;

/**
 * The window a range covers, ending now. A rollup tier's window starts on a bucket boundary so it
 * holds whole buckets; `all` starts at the oldest stored bucket (or today when there is none).
 */
export function historyWindow(
  range: HistoryRange,
  tier: HistoryTier,
  now: number,
  oldest: number | null = null,
): { from: number; to: number } {
  const unit = TIER_UNIT_MS[tier];
  const start = range === 'all' ? (oldest ?? now) : now - RANGE_MS[range];
  return { from: alignDown(Math.min(start, now), unit), to: now };
}
