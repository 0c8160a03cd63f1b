/**
 * The sensor state machine of the specification, as a pure function:
 * (state, rules, event, context) → {state, effects}. The caller writes the new state and the
 * incident changes first, then performs alerts and events. No I/O, no clock: times come in events.
 */
import type { SensorStatus } from '@monitor/contracts';

/** Declared once, in the API's contracts: the state machine, the entity and the API share it. */
export type { SensorStatus };

export interface OpenIncident {
  /** Null until the caller has stored it. */
  id: number | null;
  startedAt: number;
  acknowledged: boolean;
}

export interface SensorState {
  status: SensorStatus;
  /** Consecutive failures; 0 after a success. */
  streak: number;
  incident: OpenIncident | null;
  /** When the last down/reminder alert went out (ms), for reminders. */
  lastAlertAt: number | null;
}

export interface SensorRules {
  retries: number;
  /** Seconds between reminders while down; 0: none. */
  reminderEvery: number;
}

/** Why failures are excused right now: no incident, no alert. */
export interface Excuse {
  parentDown: boolean;
  inMaintenance: boolean;
}

export type SensorEvent =
  | { type: 'result'; at: number; success: boolean; message: string }
  | { type: 'tick'; at: number }
  | { type: 'pause'; at: number }
  | { type: 'resume'; at: number }
  | { type: 'acknowledge'; at: number }
  | { type: 'unacknowledge'; at: number }
  | { type: 'maintenance-start'; at: number; window: string };

export type AlertKind = 'down' | 'up' | 'reminder';

export type SensorEffect =
  | { kind: 'open-incident'; startedAt: number; cause: string }
  | { kind: 'close-incident'; resolvedAt: number; note: string | null }
  | { kind: 'alert'; alert: AlertKind; at: number; downSince: number; downForMs: number }
  | { kind: 'status-changed'; from: SensorStatus; to: SensorStatus };

export interface Transition {
  state: SensorState;
  effects: SensorEffect[];
}

export const INITIAL_STATE: SensorState = { status: 'unknown', streak: 0, incident: null, lastAlertAt: null };

export const NOT_EXCUSED: Excuse = { parentDown: false, inMaintenance: false };

export const MAINTENANCE_NOTE_PREFIX = 'closed by maintenance window';

const excused = (excuse: Excuse): boolean => excuse.parentDown || excuse.inMaintenance;

export function transition(
  state: SensorState,
  rules: SensorRules,
  event: SensorEvent,
  excuse: Excuse = NOT_EXCUSED,
): Transition {
  const next = nextState(state, rules, event, excuse);
  if (next.state.status !== state.status) {
    next.effects.push({ kind: 'status-changed', from: state.status, to: next.state.status });
  }
  return next;
}

function nextState(state: SensorState, rules: SensorRules, event: SensorEvent, excuse: Excuse): Transition {
  switch (event.type) {
    case 'result':
      if (state.status === 'paused') return unchanged(state);
      return event.success ? onSuccess(state, event.at) : onFailure(state, rules, event, excuse);
    case 'tick':
      return onTick(state, rules, event.at, excuse);
    case 'pause':
      return onPause(state, event.at);
    case 'resume':
      return state.status === 'paused' ? { state: { ...INITIAL_STATE }, effects: [] } : unchanged(state);
    case 'acknowledge':
    case 'unacknowledge':
      if (!state.incident) return unchanged(state);
      return {
        state: { ...state, incident: { ...state.incident, acknowledged: event.type === 'acknowledge' } },
        effects: [],
      };
    case 'maintenance-start':
      if (!state.incident) return unchanged(state);
      return {
        state: { ...state, incident: null },
        effects: [
          {
            kind: 'close-incident',
            resolvedAt: event.at,
            note: `${MAINTENANCE_NOTE_PREFIX} "${event.window}"`,
          },
        ],
      };
  }
}

const unchanged = (state: SensorState): Transition => ({ state, effects: [] });

function onSuccess(state: SensorState, at: number): Transition {
  const effects: SensorEffect[] = [];
  if (state.incident) {
    // The outage length comes from the incident start, read before anything moves.
    const downSince = state.incident.startedAt;
    effects.push({ kind: 'close-incident', resolvedAt: at, note: null });
    effects.push({ kind: 'alert', alert: 'up', at, downSince, downForMs: Math.max(0, at - downSince) });
  }
  return { state: { status: 'up', streak: 0, incident: null, lastAlertAt: state.lastAlertAt }, effects };
}

function onFailure(
  state: SensorState,
  rules: SensorRules,
  event: { at: number; message: string },
  excuse: Excuse,
): Transition {
  const streak = state.streak + 1;
  if (streak < rules.retries) {
    return { state: { ...state, status: state.incident ? 'down' : 'warn', streak }, effects: [] };
  }
  if (state.incident || excused(excuse)) {
    return { state: { ...state, status: 'down', streak }, effects: [] };
  }
  return {
    state: {
      status: 'down',
      streak,
      incident: { id: null, startedAt: event.at, acknowledged: false },
      lastAlertAt: event.at,
    },
    effects: [
      { kind: 'open-incident', startedAt: event.at, cause: event.message },
      { kind: 'alert', alert: 'down', at: event.at, downSince: event.at, downForMs: 0 },
    ],
  };
}

function onTick(state: SensorState, rules: SensorRules, at: number, excuse: Excuse): Transition {
  const incident = state.incident;
  if (state.status !== 'down' || !incident || incident.acknowledged || rules.reminderEvery <= 0)
    return unchanged(state);
  if (excused(excuse)) return unchanged(state);
  const last = state.lastAlertAt ?? incident.startedAt;
  if (at - last < rules.reminderEvery * 1000) return unchanged(state);
  return {
    state: { ...state, lastAlertAt: at },
    effects: [
      {
        kind: 'alert',
        alert: 'reminder',
        at,
        downSince: incident.startedAt,
        downForMs: Math.max(0, at - incident.startedAt),
      },
    ],
  };
}

function onPause(state: SensorState, at: number): Transition {
  if (state.status === 'paused') return unchanged(state);
  const effects: SensorEffect[] = state.incident
    ? [{ kind: 'close-incident', resolvedAt: at, note: 'closed because the sensor was paused' }]
    : [];
  return { state: { status: 'paused', streak: 0, incident: null, lastAlertAt: state.lastAlertAt }, effects };
}

/** What stored data says about a sensor at process start. */
export interface StoredHistory {
  enabled: boolean;
  /** The newest stored result, or null when the sensor has none. */
  newest: { at: number; success: boolean; message: string } | null;
  /** Failures stored after streakBoundary(…) (all of them when nothing bounds the streak). */
  trailingFailures: number;
  /** Timestamp of the first of those failures. */
  streakStartedAt: number | null;
  openIncident: OpenIncident | null;
  /** When the sensor's most recently resolved incident was resolved; null when none was. */
  lastResolvedAt: number | null;
  lastAlertAt: number | null;
}

/**
 * Failures stored at or before this time never count toward a streak at start: a success ended
 * them, or an incident that was resolved (by a success whose result never reached the disk, a
 * maintenance window or a pause) already covered them. Null: nothing bounds the streak.
 */
export function streakBoundary(lastSuccessAt: number | null, lastResolvedAt: number | null): number | null {
  if (lastSuccessAt === null) return lastResolvedAt;
  if (lastResolvedAt === null) return lastSuccessAt;
  return Math.max(lastSuccessAt, lastResolvedAt);
}

export interface Rebuilt {
  state: SensorState;
  /** An outage that happened while the process was off: store it, announce nothing. */
  reconstructed: { startedAt: number; cause: string } | null;
}

export const RECONSTRUCTED_SUFFIX = ' (reconstructed after restart)';

/**
 * Runtime state rebuilt from stored data at start. A known outage keeps its incident and sends
 * nothing. Failures already covered by a stored incident (open, or resolved after them) are that
 * incident and never reopen it; only failures after the newest resolution that reach the threshold
 * become a reconstructed incident, starting at the first of them, also without an alert.
 */
export function rebuildState(
  history: StoredHistory,
  rules: SensorRules,
  now: number,
  excuse: Excuse = NOT_EXCUSED,
): Rebuilt {
  if (!history.enabled) return { state: { ...INITIAL_STATE, status: 'paused' }, reconstructed: null };
  const resolvedAt = history.lastResolvedAt;
  const covered = (at: number | null) => at !== null && resolvedAt !== null && at <= resolvedAt;
  // A streak reported from before the newest resolution belongs to that incident, not a new one.
  const streak = covered(history.streakStartedAt) ? 0 : history.trailingFailures;
  const base = { streak, incident: history.openIncident, lastAlertAt: history.lastAlertAt };
  if (history.openIncident) return { state: { ...base, status: 'down' }, reconstructed: null };
  if (!history.newest) return { state: { ...INITIAL_STATE }, reconstructed: null };
  if (history.newest.success) return { state: { ...base, status: 'up', streak: 0 }, reconstructed: null };
  // Resolved after the newest stored failure: what ended the outage is not stored, nothing is open.
  if (covered(history.newest.at) || streak === 0)
    return { state: { ...base, status: 'unknown', streak: 0 }, reconstructed: null };
  if (streak < rules.retries) return { state: { ...base, status: 'warn' }, reconstructed: null };
  if (excused(excuse) || history.streakStartedAt === null)
    return { state: { ...base, status: 'down' }, reconstructed: null };
  const startedAt = history.streakStartedAt;
  return {
    state: {
      status: 'down',
      streak,
      incident: { id: null, startedAt, acknowledged: false },
      lastAlertAt: now,
    },
    reconstructed: { startedAt, cause: `${history.newest.message}${RECONSTRUCTED_SUFFIX}` },
  };
}
