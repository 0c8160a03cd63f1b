import type { Incident } from './sensors';

/** The ranges the series, uptime and incident-list endpoints accept. */
export const HISTORY_RANGES = ['1h', '24h', '7d', '30d', '90d', '1y', 'all'] as const;
export type HistoryRange = (typeof HISTORY_RANGES)[number];

/** Which stored tier answered: raw results, hourly buckets or daily buckets (never a mix). */
export type HistoryTier = 'raw' | 'hourly' | 'daily';

/** One chart point; an empty bucket has `count: 0` and null everywhere else. */
export interface SeriesPoint {
  /** Start of the bucket. */
  ts: string;
  count: number;
  up: number | null;
  /** Percentage of successful samples, 0–100. */
  uptime: number | null;
  avg_ms: number | null;
  min_ms: number | null;
  max_ms: number | null;
}

export interface SeriesResponse {
  range: HistoryRange;
  tier: HistoryTier;
  /** The window the points cover: from inclusive, to exclusive. */
  from: string;
  to: string;
  /** Width of one point. */
  step_seconds: number;
  points: SeriesPoint[];
}

export interface UptimeResponse {
  range: HistoryRange;
  tier: HistoryTier;
  from: string;
  to: string;
  /** percent is null when the window holds no samples; empty buckets are not in the denominator. */
  uptime: { percent: number | null; count: number; up: number };
  /** Over successful samples; null without any. */
  latency: { avg_ms: number | null; min_ms: number | null; max_ms: number | null };
  /** Incidents overlapping the window, newest first; items holds at most 100 of them. */
  incidents: { count: number; items: Incident[] };
  /** Seconds of the window covered by incidents. */
  downtime: { seconds: number };
}

export type SearchKind = 'sensor' | 'site' | 'channel' | 'incident' | 'result' | 'user';
export const SEARCH_KINDS: readonly SearchKind[] = [
  'sensor',
  'site',
  'channel',
  'incident',
  'result',
  'user',
];

export interface SearchHit {
  kind: SearchKind;
  /** sensor id, site name, channel id, incident id, sensor id (for a result) or username. */
  ref: number | string;
  title: string;
  sub: string;
  state: string;
  /** The time the hit is about, when it has one. */
  at: string | null;
}

export interface SearchResponse {
  hits: SearchHit[];
  /** True when any kind had more than 20 matches. */
  truncated: boolean;
}
