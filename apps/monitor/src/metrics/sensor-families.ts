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

/** One series of a sensor: the labels beyond the sensor's own (already escaped), and its value. */
type Series = [extra: string, value: number];

interface Family {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  series(sample: SensorSample, out: Series[]): void;
}

/** A warning (failures below the retry threshold) still counts as up: the sensor answers. */
export const isUp = (status: SensorStatus): boolean => status === 'up' || status === 'warn';

export const SENSOR_FAMILIES: readonly Family[] = [
  {
    name: 'monitor_sensor_up',
    help: 'Whether the sensor is up (1: up or warn) or not (0: down, unknown, paused).',
    type: 'gauge',
    series: (s, out) => void out.push(['', isUp(s.status) ? 1 : 0]),
  },
  {
    name: 'monitor_sensor_status',
    help: 'The sensor status, one-hot over the five states.',
    type: 'gauge',
    series: (s, out) => {
      for (const status of SENSOR_STATUSES) out.push([`,status="${status}"`, s.status === status ? 1 : 0]);
    },
  },
  {
    name: 'monitor_probe_duration_seconds',
    help: 'How long the last probe took; absent when nothing answered it.',
    type: 'gauge',
    series: (s, out) => {
      if (s.latencyMs !== null) out.push(['', s.latencyMs / 1000]);
    },
  },
  {
    name: 'monitor_probes_total',
    help: 'Scheduled probes this process ran, by result.',
    type: 'counter',
    series: (s, out) => {
      if (!s.probes) return;
      out.push([',result="success"', s.probes.success]);
      out.push([',result="failure"', s.probes.failure]);
    },
  },
  {
    name: 'monitor_sensor_uptime_ratio',
    help: 'Share of successful results over the window, from the rollups; absent without results.',
    type: 'gauge',
    series: (s, out) => {
      for (const window of UPTIME_WINDOWS) {
        const ratio = s.uptime?.[window];
        if (ratio !== undefined && ratio !== null) out.push([`,window="${window}"`, ratio]);
      }
    },
  },
  {
    name: 'monitor_sensor_cert_expiry_timestamp_seconds',
    help: 'When the TLS certificate the last probes saw expires (Unix time).',
    type: 'gauge',
    series: (s, out) => {
      if (s.certExpiresAt !== undefined) out.push(['', Math.floor(s.certExpiresAt / 1000)]);
    },
  },
  {
    name: 'monitor_open_incidents',
    help: 'Open incidents of the sensor (0 or 1); sum it for the installation.',
    type: 'gauge',
    series: (s, out) => void out.push(['', s.openIncident ? 1 : 0]),
  },
];

/** Sensors handled before other work gets a turn: about a millisecond of work. */
export const SENSORS_PER_TURN = 250;

const LABELS_METRIC = 'monitor_sensor_labels';

/**
 * Every sensor's own labels as prom-client formats (and escapes) them, `sensor="…",type="…",…`, a
 * few sensors at a time: it renders them as one stand-in metric through a registry and the label
 * part is taken from each line (which ends in `} 0`).
 */
async function escapedLabels(samples: readonly SensorSample[], perTurn: number): Promise<string[]> {
  const piece = { name: LABELS_METRIC, help: 'labels', type: 'gauge', values: [] as object[] };
  const registry = new Registry();
  registry.registerMetric({ name: LABELS_METRIC, get: () => piece } as unknown as Metric);
  const out: string[] = [];
  for (let at = 0; at < samples.length; at += perTurn) {
    if (at > 0) await nextTurn();
    piece.values = samples.slice(at, at + perTurn).map((s) => ({ labels: s.labels, value: 0 }));
    const lines = (await registry.getSingleMetricAsString(LABELS_METRIC)).split('\n').slice(2);
    for (const line of lines) out.push(line.slice(LABELS_METRIC.length + 1, -'} 0'.length));
  }
  return out;
}

const valueText = (value: number): string =>
  Number.isNaN(value) ? 'NaN' : Number.isFinite(value) ? String(value) : value < 0 ? '-Inf' : '+Inf';

/**
 * Renders the sensor families in the text exposition format, a few sensors at a time with a turn
 * of the event loop between. Each sensor's labels are escaped once by prom-client (see above); the
 * lines of every family reuse them. Series are built from the samples on every scrape, so a
 * deleted sensor has none and a renamed one appears under its new name.
 */
export async function renderSensorFamilies(
  samples: readonly SensorSample[],
  perTurn = SENSORS_PER_TURN,
): Promise<string[]> {
  const labels = await escapedLabels(samples, perTurn);
  const pieces: string[] = [];
  const series: Series[] = [];
  for (const family of SENSOR_FAMILIES) {
    pieces.push(`# HELP ${family.name} ${family.help}\n# TYPE ${family.name} ${family.type}`);
    for (let at = 0; at < samples.length; at += perTurn) {
      await nextTurn();
      const lines: string[] = [];
      for (let i = at; i < Math.min(at + perTurn, samples.length); i++) {
        series.length = 0;
        family.series(samples[i], series);
        for (const [extra, value] of series)
          lines.push(`${family.name}{${labels[i]}${extra}} ${valueText(value)}`);
      }
      if (lines.length > 0) pieces.push(lines.join('\n'));
    }
  }
  return pieces;
}
