// Live events benchmark: N http sensors against a local keep-alive target (170 results/s by
// default: 1,700 sensors every 10 s) and S plain-HTTP subscribers of GET /api/events. Reports the
// delivery latency of `result` frames, p50/p99/max over every (subscriber, frame) pair, measured
// from the probe's arrival at the target (and, second, from the result's ts) to the frame's arrival
// at the subscriber; events delivered and dropped; and the server's CPU share (CPU time over wall
// time) under the same load with no subscriber and with S subscribers.
import { request } from 'node:http';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { cpuMs, rssMiB } from './support/proc.mjs';
import { percentile, startBenchServer } from './support/server.mjs';
import { startTarget } from './support/target.mjs';

const PASSWORD = 'bench password 12345';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const maxOf = (values) => values.reduce((a, b) => (b > a ? b : a), -Infinity);

/** One subscriber: a plain HTTP request that parses frames as they arrive. */
function subscribe(url, headers, onResult) {
  return new Promise((resolve, reject) => {
    const stats = { results: 0, keepAlives: 0, other: 0, ended: false };
    const req = request(`${url}/api/events`, {
      agent: false,
      headers: { accept: 'text/event-stream', 'x-api-key': headers['x-api-key'] },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`GET /api/events answered ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      let pending = '';
      res.on('data', (chunk) => {
        const at = performance.now();
        const wall = Date.now();
        pending += chunk;
        let boundary;
        while ((boundary = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, boundary);
          pending = pending.slice(boundary + 2);
          if (block.startsWith('event: result\n')) {
            stats.results++;
            const data = JSON.parse(block.slice(block.indexOf('data: ') + 6));
            onResult(data, at, wall);
          } else if (block.startsWith(':')) stats.keepAlives++;
          else stats.other++;
        }
      });
      res.on('close', () => (stats.ended = true));
      resolve({ stats, close: () => req.destroy() });
    });
    req.end();
  });
}

/** The latest arrival at or before `at` (arrivals are in time order). */
function arrivalBefore(times, at) {
  for (let i = times.length - 1; i >= 0; i--) if (times[i] <= at) return times[i];
  return undefined;
}

export async function runScenario({ sensors, interval, subscribers, seconds, baselineSeconds }) {
  const target = await startTarget();
  const server = await startBenchServer({ env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
  const clients = [];
  try {
    const headers = await apiKeyFor(server.url, PASSWORD);
    const bodies = Array.from({ length: sensors }, (_, i) => ({
      name: `live-${i}`,
      type: 'http',
      target: `${target.url}/s/${i}`,
      interval,
      options: { timeout: Math.min(10, interval) },
    }));
    const ids = await createSensors(server.url, headers, bodies);
    const keyOf = new Map(ids.map((id, i) => [id, String(i)]));

    // Every loop makes its first probe within one interval; then the load is steady.
    await sleep(interval * 1000 + 2000);
    const pid = server.child.pid;

    // The same load with nobody subscribed.
    let wall0 = performance.now();
    let cpu0 = cpuMs(pid);
    await sleep(baselineSeconds * 1000);
    const baselineShare = (cpuMs(pid) - cpu0) / (performance.now() - wall0);

    const fromProbe = [];
    const fromTs = [];
    let measuring = false;
    let unmatched = 0;
    const onResult = (data, at, wall) => {
      if (!measuring) return;
      const times = target.arrivals.get(keyOf.get(data.sensor_id));
      const probe = times && arrivalBefore(times, at);
      if (probe === undefined) unmatched++;
      else fromProbe.push(at - probe);
      fromTs.push(wall - Date.parse(data.result.ts));
    };
    for (let i = 0; i < subscribers; i++) clients.push(await subscribe(server.url, headers, onResult));
    await sleep(2000);

    const resultsAtTarget0 = [...target.arrivals.values()].reduce((n, list) => n + list.length, 0);
    measuring = true;
    wall0 = performance.now();
    cpu0 = cpuMs(pid);
    let peakRss = 0;
    const deadline = wall0 + seconds * 1000;
    while (performance.now() < deadline) {
      await sleep(1000);
      peakRss = Math.max(peakRss, rssMiB(pid));
    }
    const wall = performance.now() - wall0;
    const share = (cpuMs(pid) - cpu0) / wall;
    measuring = false;
    const probes = [...target.arrivals.values()].reduce((n, list) => n + list.length, 0) - resultsAtTarget0;
    const dropWarnings = server.lines.filter((line) =>
      line.includes('not keeping up: dropping events'),
    ).length;

    return {
      sensors,
      interval_s: interval,
      subscribers,
      measured_s: seconds,
      results_per_s: round(probes / (wall / 1000)),
      frames_received: fromTs.length,
      frames_per_s: round(fromTs.length / (wall / 1000)),
      unmatched,
      subscribers_ended: clients.filter((c) => c.stats.ended).length,
      subscribers_dropping: dropWarnings,
      latency_from_probe_ms: {
        p50: round(percentile(fromProbe, 50)),
        p99: round(percentile(fromProbe, 99)),
        max: round(maxOf(fromProbe)),
      },
      latency_from_ts_ms: {
        p50: round(percentile(fromTs, 50)),
        p99: round(percentile(fromTs, 99)),
        max: round(maxOf(fromTs)),
      },
      server_cpu_share: { without_subscribers: round(baselineShare, 3), with_subscribers: round(share, 3) },
      rss_mib_peak: round(peakRss),
    };
  } finally {
    for (const client of clients) client.close();
    await server.stop();
    await target.close();
  }
}

export function describe(r) {
  return (
    `live ${r.sensors} http sensors @ ${r.interval_s} s (${r.results_per_s} results/s), ${r.subscribers} SSE subscribers, ${r.measured_s} s: ` +
    `${r.frames_received} result frames (${r.frames_per_s}/s); latency from probe arrival p50 ${r.latency_from_probe_ms.p50} ms, ` +
    `p99 ${r.latency_from_probe_ms.p99} ms, max ${r.latency_from_probe_ms.max} ms ` +
    `(from result ts p50 ${r.latency_from_ts_ms.p50} ms, p99 ${r.latency_from_ts_ms.p99} ms); ` +
    `server CPU ${round(r.server_cpu_share.with_subscribers * 100)} % of one core ` +
    `(${round(r.server_cpu_share.without_subscribers * 100)} % with no subscriber); peak RSS ${r.rss_mib_peak} MiB; ` +
    `subscribers dropping: ${r.subscribers_dropping}, ended early: ${r.subscribers_ended}`
  );
}

export async function run() {
  const result = await runScenario({
    sensors: Number(process.env.BENCH_LIVE_SENSORS ?? 1700),
    interval: Number(process.env.BENCH_LIVE_INTERVAL ?? 10),
    subscribers: Number(process.env.BENCH_LIVE_SUBSCRIBERS ?? 50),
    seconds: Number(process.env.BENCH_LIVE_SECONDS ?? 60),
    baselineSeconds: Number(process.env.BENCH_LIVE_BASELINE_SECONDS ?? 30),
  });
  console.log(describe(result));
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
