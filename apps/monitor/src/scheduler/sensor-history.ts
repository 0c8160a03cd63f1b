import { SPARKLINE_POINTS, type ProbeResult, type SparkPoint } from '@monitor/contracts';
import type { SensorState } from '@monitor/domain';
import type { ProbeOutcome } from '@monitor/probes';
import type { RecentRow } from '../history/history.repository';
import type { RuntimeEntry } from './runtime-entry';
import type { SensorDefinition } from '../sensors/sensor-definition';

export const SPARKLINE_LENGTH = SPARKLINE_POINTS;

export type { RecentRow };

export const toSparkPoint = (row: RecentRow): SparkPoint => ({
  ts: new Date(row.ts).toISOString(),
  success: row.success === 1,
  latency_ms: row.latency_ms,
});

/** Outcomes as the summary's `recent` shows them: one character each, `1` success, `0` failure. */
export const outcomeChar = (success: boolean): string => (success ? '1' : '0');

const iso = (ms: number) => new Date(ms).toISOString();

export function outcomeColumns(outcome: ProbeOutcome) {
  return {
    success: outcome.success,
    statusCode: outcome.statusCode ?? null,
    latencyMs: outcome.latencyMs === null ? null : Math.round(outcome.latencyMs * 10) / 10,
    message: outcome.message,
  };
}

/** A probe outcome as the API shows a stored result. */
export function resultView(ts: number, outcome: ProbeOutcome): ProbeResult {
  const columns = outcomeColumns(outcome);
  return {
    ts: iso(ts),
    success: columns.success,
    status_code: columns.statusCode,
    message: columns.message,
    latency_ms: columns.latencyMs,
  };
}

export function entryOf(definition: SensorDefinition, state: SensorState, recent: RecentRow[]): RuntimeEntry {
  const newest = recent[0];
  return {
    definition,
    state,
    message: newest?.message ?? '',
    lastCheckedAt: newest?.ts ?? null,
    latencyMs: newest?.latency_ms ?? null,
    statusChangedAt: null,
    sparkline: recent.slice(0, SPARKLINE_LENGTH).map(toSparkPoint).reverse(),
    recent: recent
      .map((row) => outcomeChar(row.success === 1))
      .reverse()
      .join(''),
    lastResult: newest
      ? {
          ts: iso(newest.ts),
          success: newest.success === 1,
          status_code: newest.status_code,
          message: newest.message,
          latency_ms: newest.latency_ms,
        }
      : null,
  };
}

/** Parents before their children, so a child's rebuild can see whether its parent is down. */
export function parentsFirst(definitions: SensorDefinition[]): SensorDefinition[] {
  const byId = new Map(definitions.map((d) => [d.id, d]));
  const depth = (d: SensorDefinition, seen = new Set<number>()): number => {
    if (d.parentId === null || seen.has(d.id)) return 0;
    seen.add(d.id);
    const parent = byId.get(d.parentId);
    return parent ? 1 + depth(parent, seen) : 0;
  };
  return [...definitions].sort((a, b) => depth(a) - depth(b));
}
