import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SensorStatus } from '@monitor/contracts';
import { type Metric, Registry } from 'prom-client';

export const SENSOR_STATUSES: readonly SensorStatus[] = ['up', 'warn', 'down', 'unknown', 'paused'];
export const UPTIME_WINDOWS = ['1d', '30d', '365d'] as const;

/** The only labels a sensor's series carry: nothing of high cardinality such as its target. */
export interface SensorLabels {
  sensor: string;
  type: string;
  group: string;
  site: string;
}

/** One sensor as a scrape sees it, gathered from memory. */
export interface SensorSample {
  labels: SensorLabels;
  status: SensorStatus;
  latencyMs: number | null;
  openIncident: boolean;
  probes?: { success: number; failure: number };
  certExpiresAt?: number;
  uptime?: Partial<Record<(typeof UPTIME_WINDOWS)[number], number | null>>;
}

type Value = { labels: Record<string, string>; value: number };

interface Family {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  values(sample: SensorSample, out: Value[]): void;
}

/** A warning (failures below the retry threshold) still counts as up: the sensor answers. */
export const isUp = (status: SensorStatus): boolean => status === 'up' || status === 'warn';

export const SENSOR_FAMILIES: readonly Family[] = [
  {
    name: 'monitor_sensor_up',
    help: 'Whether the sensor is up (1: up or warn) or not (0: down, unknown, paused).',
    type: 'gauge',
    values: (s, out) => void out.push({ labels: { ...s.labels }, value: isUp(s.status) ? 1 : 0 }),
  },
  {
    name: 'monitor_sensor_status',
    help: 'The sensor status, one-hot over the five states.',
    type: 'gauge',
    values: (s, out) => {
      for (const status of SENSOR_STATUSES)
        out.push({ labels: { ...s.labels, status }, value: s.status === status ? 1 : 0 });
    },
  },
  {
    name: 'monitor_probe_duration_seconds',
    help: 'How long the last probe took; absent when nothing answered it.',
    type: 'gauge',
    values: (s, out) => {
      if (s.latencyMs !== null) out.push({ labels: { ...s.labels }, value: s.latencyMs / 1000 });
    },
  },
  {
    name: 'monitor_probes_total',
    help: 'Scheduled probes this process ran, by result.',
    type: 'counter',
    values: (s, out) => {
      if (!s.probes) return;
      out.push({ labels: { ...s.labels, result: 'success' }, value: s.probes.success });
      out.push({ labels: { ...s.labels, result: 'failure' }, value: s.probes.failure });
    },
  },
  {
    name: 'monitor_sensor_uptime_ratio',
    help: 'Share of successful results over the window, from the rollups; absent without results.',
    type: 'gauge',
    values: (s, out) => {
      for (const window of UPTIME_WINDOWS) {
        const ratio = s.uptime?.[window];
        if (ratio !== undefined && ratio !== null)
          out.push({ labels: { ...s.labels, window }, value: ratio });
      }
    },
  },
  {
    name: 'monitor_sensor_cert_expiry_timestamp_seconds',
    help: 'When the TLS certificate the last probes saw expires (Unix time).',
    type: 'gauge',
    values: (s, out) => {
      if (s.certExpiresAt !== undefined)
        out.push({ labels: { ...s.labels }, value: Math.floor(s.certExpiresAt / 1000) });
    },
  },
  {
    name: 'monitor_open_incidents',
    help: 'Open incidents of the sensor (0 or 1); sum it for the installation.',
    type: 'gauge',
    values: (s, out) => void out.push({ labels: { ...s.labels }, value: s.openIncident ? 1 : 0 }),
  },
];

/** Sensors rendered before other work gets a turn: about a millisecond of formatting. */
export const SENSORS_PER_TURN = 100;

/**
 * Renders the sensor families in the text exposition format, a few sensors at a time with a turn
 * of the event loop between: prom-client formats (and escapes) each piece through a registry that
 * holds one stand-in metric whose values are that piece. Series are built from the samples on
 * every scrape, so a deleted sensor has none and a renamed one appears under its new name.
 */
export async function renderSensorFamilies(
  samples: readonly SensorSample[],
  perTurn = SENSORS_PER_TURN,
): Promise<string[]> {
  const pieces: string[] = [];
  for (const family of SENSOR_FAMILIES) {
    const piece = { name: family.name, help: family.help, type: family.type, values: [] as Value[] };
    const registry = new Registry();
    registry.registerMetric({ name: family.name, get: () => piece } as unknown as Metric);
    for (let at = 0; at === 0 || at < samples.length; at += perTurn) {
      if (at > 0) await nextTurn();
      piece.values = [];
      for (const sample of samples.slice(at, at + perTurn)) family.values(sample, piece.values);
      const text = await registry.getSingleMetricAsString(family.name);
      // HELP and TYPE once per family: later pieces drop their first two lines.
      pieces.push(at === 0 ? text : dropLines(text, 2));
    }
  }
  return pieces.filter((p) => p.length > 0);
}

function dropLines(text: string, count: number): string {
  let at = 0;
  for (let i = 0; i < count; i++) {
    const next = text.indexOf('\n', at);
    if (next < 0) return '';
    at = next + 1;
  }
  return text.slice(at);
}
