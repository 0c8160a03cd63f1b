// Metrics benchmark (issue 18): GET /metrics of the built server with 1,000 and 10,000 http sensors
// probing every 60 s against a local target, with 365 days of daily and two days of hourly rollups
// (so every uptime window has a ratio). Scrapes one after another as Prometheus does, with its
// Accept-Encoding, and reports the time of a whole scrape (body read) and the largest event-loop
// stall the server saw: each scrape carries prom-client's nodejs_eventloop_lag_max_seconds, the
// largest delay of perf_hooks' event-loop monitor since the previous scrape's, which covers this
// scrape's own rendering, less the monitor's 10 ms timer period. An idle stretch between two scrapes gives the baseline without scrapes.
// BENCH_METRICS_SIZES=1000,10000 picks the sizes.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startBenchServer, percentile } from './support/server.mjs';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { fillRollups } from './support/rollups.mjs';
import { startTarget } from './support/target.mjs';

const LAG_RESOLUTION_MS = 10;
const Database = createRequire(import.meta.url)('better-sqlite3');

const PASSWORD = 'bench password 12345';
const SIZES = (process.env.BENCH_METRICS_SIZES ?? '1000,10000').split(',').map(Number);
const SCRAPES = 20;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, places = 1) => Math.round(value * 10 ** places) / 10 ** places;

/** `days` daily buckets per sensor before `through`, one in seven with three failures. */
function fillDaily(db, ids, days, through) {
  const insert = db.prepare(
    `INSERT INTO rollup_daily (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
     VALUES (?, ?, 1440, ?, ?, 5, 500)`,
  );
  db.transaction(() => {
    for (const id of ids)
      for (let day = 1; day <= days; day++) {
        const up = (id + day) % 7 === 0 ? 1437 : 1440;
        insert.run(id, through - day * DAY, up, up * 42.5);
      }
  })();
}

/** One scrape as Prometheus makes it; the body is read so the time covers the whole answer. */
async function scrape(url, token) {
  const started = performance.now();
  const res = await fetch(`${url}/metrics`, {
    headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' },
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${text.slice(0, 200)}`);
  const lag = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
  // The monitor's timer fires every 10 ms (prom-client's default precision) and records the whole
  // time between two firings, so an idle loop reads 10 ms: the stall is what lies beyond that.
  const stallMs = lag ? Math.max(0, Number(lag[1]) * 1000 - LAG_RESOLUTION_MS) : NaN;
  return { ms, bytes: Buffer.byteLength(text), stallMs, text };
}

async function measure(size, target) {
  const env = { MONITOR_ADMIN_PASSWORD: PASSWORD };
  let server = await startBenchServer({ env });
  const dataDir = server.dataDir;
  try {
    let headers = await apiKeyFor(server.url, PASSWORD);
    const ids = await createSensors(
      server.url,
      headers,
      Array.from({ length: size }, (_, i) => ({
        name: `bench-${i}`,
        type: 'http',
        target: `${target.url}/s/${i}`,
        interval: 60,
        group: `group-${i % 20}`,
        options: { timeout: 10 },
      })),
    );
    // A year of history, written while the server is stopped.
    await server.stop({ keepData: true });
    const now = Date.now();
    const db = new Database(join(dataDir, 'monitor.db'));
    fillRollups(db, ids, 2, now - (now % HOUR));
    fillDaily(db, ids, 365, now - (now % DAY));
    db.close();
    server = await startBenchServer({ env, dataDir });
    headers = await apiKeyFor(server.url, PASSWORD);
    const made = await fetch(`${server.url}/api/metrics-token`, {
      method: 'POST',
      headers: { 'x-api-key': headers['x-api-key'] },
    });
    if (made.status !== 200) throw new Error(`metrics token answered ${made.status}: ${await made.text()}`);
    const { metrics_token: token } = await made.json();

    // The uptime ratios are computed in the background after the start: wait until they are served.
    const readyStarted = performance.now();
    for (;;) {
      const { text } = await scrape(server.url, token);
      const ratios = (text.match(/^monitor_sensor_uptime_ratio\{/gm) ?? []).length;
      if (ratios >= size * 3) break;
      if (performance.now() - readyStarted > 120_000)
        throw new Error(`only ${ratios} uptime ratios after 2 min`);
      await sleep(500);
    }
    const uptimeReadyMs = performance.now() - readyStarted;

    // Idle baseline: the largest stall over 5 s without scrapes (probes keep running).
    await scrape(server.url, token);
    await sleep(5000);
    const idle = await scrape(server.url, token);

    const times = [];
    const stalls = [];
    let bytes = 0;
    for (let i = 0; i < SCRAPES; i++) {
      const s = await scrape(server.url, token);
      times.push(s.ms);
      stalls.push(s.stallMs);
      bytes = s.bytes;
      await sleep(200);
    }
    return {
      sensors: size,
      scrape_ms: {
        p50: round(percentile(times, 50)),
        p95: round(percentile(times, 95)),
        max: round(Math.max(...times)),
      },
      max_event_loop_stall_ms: round(Math.max(...stalls)),
      idle_max_event_loop_stall_ms: round(idle.stallMs),
      body_bytes: bytes,
      uptime_ready_after_start_ms: Math.round(uptimeReadyMs),
    };
  } finally {
    await server.stop();
  }
}

export async function run() {
  const target = await startTarget();
  const results = [];
  try {
    for (const size of SIZES) {
      const r = await measure(size, target);
      console.log(
        `metrics ${r.sensors} sensors: scrape p50 ${r.scrape_ms.p50} ms, p95 ${r.scrape_ms.p95} ms, max ${r.scrape_ms.max} ms; ` +
          `largest event-loop stall ${r.max_event_loop_stall_ms} ms (idle baseline ${r.idle_max_event_loop_stall_ms} ms); ` +
          `${Math.round(r.body_bytes / 1024)} KiB`,
      );
      results.push(r);
    }
  } finally {
    await target.close();
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
