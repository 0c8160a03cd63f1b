import { SPARKLINE_POINTS, type SparkPoint } from '@monitor/contracts';
import type { SensorState } from '@monitor/domain';
import type { HistoryRepository, RecentRow, SensorHistory } from '../history/history.repository';
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

/** Concurrent history reads while rebuilding (the pool has ten connections; others keep some). */
const HISTORY_READERS = 6;

/**
 * Every sensor's stored history, read a few sensors at a time: on PostgreSQL each read is a few
 * round trips, so one after the other made a start with 1,000 sensors take over a second.
 */
export async function storedHistories(
  history: Pick<HistoryRepository, 'sensorHistory'>,
  definitions: SensorDefinition[],
  lastResolved: ReadonlyMap<number, number>,
): Promise<Map<number, SensorHistory>> {
  const histories = new Map<number, SensorHistory>();
  let next = 0;
  const reader = async (): Promise<void> => {
    while (next < definitions.length) {
      const { id } = definitions[next++];
      histories.set(id, await history.sensorHistory(id, lastResolved.get(id) ?? null));
    }
  };
  await Promise.all(Array.from({ length: HISTORY_READERS }, reader));
  return histories;
}
