import type { Incident, ProbeResult, SensorStatus } from './sensors';

/** What happened to a sensor or channel that a `sensor` or `channel` event announces. */
export type LiveChangeAction = 'created' | 'updated' | 'deleted';

/** The payload of every event of the stream `GET /api/events`, by event name. */
export interface LiveEventPayloads {
  /** One probe result was stored. */
  result: { sensor_id: number; result: ProbeResult };
  /** A sensor changed status; `result` is the probe that changed it. */
  status: {
    sensor_id: number;
    status: SensorStatus;
    result: { ts: string; success: boolean; message: string };
  };
  /** An incident opened, changed or closed (`resolved_at` is set once it is over). */
  incident: { sensor_id: number; incident: Incident };
  /** A sensor was created, changed or deleted: refetch the list. */
  sensor: { id: number; action: LiveChangeAction };
  /** An alert channel changed: refetch. */
  channel: { id: number; action: LiveChangeAction };
  /** UI settings changed: refetch. */
  settings: Record<string, never>;
  /** Several instances on one PostgreSQL: one joined, left cleanly, or stopped answering (dead). */
  cluster: { instance: string; state: ClusterChange };
}

export type ClusterChange = 'joined' | 'left' | 'dead';

export type LiveEventKind = keyof LiveEventPayloads;

/** Every event name the stream sends, in no particular order. */
export const LIVE_EVENT_KINDS: readonly LiveEventKind[] = [
  'result',
  'status',
  'incident',
  'sensor',
  'channel',
  'settings',
  'cluster',
];

/** One event of the stream with its name, as a discriminated union. */
export type LiveEvent = {
  [K in LiveEventKind]: { kind: K; data: LiveEventPayloads[K] };
}[LiveEventKind];

/** The comment line the stream sends every 25 seconds (without its line break). */
export const LIVE_KEEP_ALIVE_COMMENT = ': keep-alive';
