import type { SampleSensor } from './sample-dataset';

export interface InventedResult {
  ts: number;
  success: boolean;
  statusCode: number | null;
  latencyMs: number | null;
  message: string;
}

export interface InventedOutage {
  startedAt: number;
  resolvedAt: number;
  cause: string;
}

/** A small deterministic generator (mulberry32), so sample history is the same on every load. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const seedOf = (text: string): number =>
  [...text].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261);

/**
 * A plausible week for one sensor, oldest first: latency with a daily swing and noise, the
 * sensor's invented outages as runs of failures, and now and then a single flaky failure.
 */
export function inventHistory(
  sensor: SampleSensor,
  from: number,
  to: number,
): { results: InventedResult[]; outages: InventedOutage[] } {
  const next = random(seedOf(sensor.name));
  const step = sensor.interval * 1000;
  const windows = sensor.outages.map((o) => ({
    start: to - o.hoursAgo * 3_600_000,
    end: to - o.hoursAgo * 3_600_000 + o.minutes * 60_000,
    message: o.message,
  }));
  const results: InventedResult[] = [];
  const outages: InventedOutage[] = [];
  let open: InventedOutage | null = null;
  const http = sensor.type === 'http';
  for (let ts = from + Math.floor(next() * step); ts < to; ts += step) {
    const outage = windows.find((w) => ts >= w.start && ts < w.end);
    const flaky = !outage && sensor.flakyOneIn > 0 && next() < 1 / sensor.flakyOneIn;
    if (outage || flaky) {
      const message = outage?.message ?? (http ? 'HTTP 504' : 'timed out after 10 s');
      if (outage && !open) open = { startedAt: ts, resolvedAt: ts, cause: message };
      results.push({
        ts,
        success: false,
        statusCode: http && /^HTTP \d+/.test(message) ? Number(message.slice(5, 8)) : null,
        latencyMs: null,
        message,
      });
      continue;
    }
    if (open) {
      open.resolvedAt = ts;
      outages.push(open);
      open = null;
    }
    const hour = new Date(ts).getUTCHours();
    const daily = 1 + 0.35 * Math.sin(((hour - 8) / 24) * 2 * Math.PI);
    const latency =
      sensor.latencyMs * daily * (0.8 + 0.4 * next()) + (next() < 0.02 ? sensor.latencyMs * 3 : 0);
    results.push({
      ts,
      success: true,
      statusCode: http ? 200 : null,
      latencyMs: Math.round(latency * 100) / 100,
      message: sensor.message,
    });
  }
  return { results, outages };
}
