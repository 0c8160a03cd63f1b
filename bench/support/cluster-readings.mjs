// What the cluster benchmark reads off a run: a webhook receiver that records alerts, probe
// arrivals turned into duplicates and hand-over gaps, PostgreSQL connections per application, and
// the instances' logs (warnings, and when a message was first logged).
import { createServer } from 'node:http';
import { percentile } from './server.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** An HTTP receiver for webhook alerts: each is kept as its sensor id, event and arrival time. */
export async function startReceiver() {
  const alerts = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { event, sensor } = JSON.parse(body);
      alerts.push({ sensor: sensor?.id, event, at: performance.now() });
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 120_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    alerts,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Arrivals of one sensor closer than half an interval within [from, to): duplicate probes. */
export function duplicates(arrivals, keys, intervalMs, from, to) {
  let count = 0;
  const sensors = new Set();
  for (const key of keys) {
    const times = (arrivals.get(key) ?? []).filter((t) => t >= from && t < to);
    for (let i = 1; i < times.length; i++) {
      if (times[i] - times[i - 1] < intervalMs / 2) {
        count++;
        sensors.add(key);
      }
    }
  }
  return { count, sensors: sensors.size };
}

/**
 * For sensors that lost their prober at `at`: the first arrival after it (ms after `at`), and the
 * gap from the last arrival before it, in whole cycles skipped.
 */
export function handover(arrivals, keys, at, intervalMs, limitMs) {
  const after = [];
  let skipped = 0;
  let maxGap = 0;
  let overLimit = 0;
  let notYet = 0;
  for (const key of keys) {
    const times = arrivals.get(key) ?? [];
    const next = times.find((t) => t >= at);
    if (next === undefined) {
      notYet++;
      continue;
    }
    after.push(next - at);
    if (next - at > limitMs) overLimit++;
    const last = times.findLast((t) => t < at);
    if (last === undefined) continue;
    skipped += Math.max(0, Math.round((next - last) / intervalMs) - 1);
    maxGap = Math.max(maxGap, next - last);
  }
  return {
    sensors: keys.length,
    not_probed_again: notYet,
    first_probe_after_ms: after.length
      ? {
          p50: Math.round(percentile(after, 50)),
          p99: Math.round(percentile(after, 99)),
          max: Math.round(Math.max(...after)),
        }
      : null,
    over_limit: overLimit,
    cycles_skipped: skipped,
    max_gap_ms: Math.round(maxGap),
  };
}

/** Polls `check` every 250 ms for up to `ms`; whether it came true. */
export async function waitFor(check, ms) {
  for (const end = performance.now() + ms; performance.now() < end; await sleep(250))
    if (check()) return true;
  return check();
}

/** Open connections to the database, by application_name (this query's own excluded). */
export async function connections(client) {
  const { rows } = await client.query(
    `SELECT application_name AS app, count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.app, r.n]));
}

/** Warnings and errors an instance logged, by message: count and the first line (evidence). */
export function warnings(server) {
  const counts = {};
  const samples = {};
  for (const line of [...server.lines, ...server.stderrLines]) {
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      entry = { level: 'stderr', msg: line.slice(0, 200) };
    }
    const level = entry.level;
    if (level === 'info' || level === 'debug' || (typeof level === 'number' && level < 40)) continue;
    counts[entry.msg] = (counts[entry.msg] ?? 0) + 1;
    samples[entry.msg] ??= line.slice(0, 400);
  }
  return Object.fromEntries(Object.entries(counts).map(([msg, n]) => [msg, { n, first: samples[msg] }]));
}

/** When each instance logged the given message after `wallMs` (Date.now()), in ms after it. */
export function loggedAfter(servers, names, msg, wallMs) {
  const out = {};
  for (const name of names) {
    for (const line of servers[name].lines) {
      if (!line.includes(msg)) continue;
      const at = Date.parse(JSON.parse(line).time);
      if (at >= wallMs) {
        out[name] = at - wallMs;
        break;
      }
    }
  }
  return out;
}
