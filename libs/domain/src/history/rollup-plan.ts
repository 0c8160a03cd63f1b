import { alignDown, DAY_MS, HOUR_MS, type Retention } from './history-range';

/**
 * How long after an hour ends before it counts as complete: results reach storage in batches a few
 * seconds late, and a probe is stamped when it starts, so a slow probe lands after its hour ends.
 */
export const SETTLE_MS = 2 * 60_000;

/** What the maintenance pass has done so far: the end of the last summarised hour and day. */
export interface RollupWatermarks {
  hourlyThrough: number | null;
  dailyThrough: number | null;
}

export interface Span {
  from: number;
  to: number;
}

/**
 * The hours to summarise now: from where the last pass stopped (or the oldest raw result) to the
 * last complete hour. Null when nothing is due. The current hour is never summarised, nor any hour
 * at or after `openSince`: the start of the earliest probe still running or result not yet written.
 */
export function hoursDue(
  hourlyThrough: number | null,
  oldestRaw: number | null,
  now: number,
  openSince = Number.POSITIVE_INFINITY,
): Span | null {
  const complete = alignDown(Math.min(now - SETTLE_MS, openSince), HOUR_MS);
  const from = hourlyThrough ?? (oldestRaw === null ? complete : alignDown(oldestRaw, HOUR_MS));
  return from < complete ? { from, to: complete } : null;
}

/** The days to summarise: only days whose every hour has been summarised. */
export function daysDue(
  dailyThrough: number | null,
  hourlyThrough: number | null,
  oldestHourly: number | null,
): Span | null {
  if (hourlyThrough === null) return null;
  const complete = alignDown(hourlyThrough, DAY_MS);
  const from = dailyThrough ?? (oldestHourly === null ? complete : alignDown(oldestHourly, DAY_MS));
  return from < complete ? { from, to: complete } : null;
}

/** Splits a span into pieces of at most `size`, so one piece of work stays small. */
export function splitSpan(span: Span, size: number): Span[] {
  const pieces: Span[] = [];
  for (let from = span.from; from < span.to; from += size)
    pieces.push({ from, to: Math.min(from + size, span.to) });
  return pieces;
}

/**
 * Rows older than these are pruned. Never anything not yet summarised into the next tier, so a
 * pass that fell behind prunes later rather than losing history.
 */
export function pruneCutoffs(
  watermarks: RollupWatermarks,
  retention: Retention,
  now: number,
): { raw: number; hourly: number } {
  return {
    raw: Math.min(now - retention.rawMs, watermarks.hourlyThrough ?? Number.NEGATIVE_INFINITY),
    hourly: Math.min(now - retention.hourlyMs, watermarks.dailyThrough ?? Number.NEGATIVE_INFINITY),
  };
}
