// Status page benchmark (issue 17): 1,000 http sensors probing every 20 s against a local target,
// and a published page listing 200 of them with 90 days of daily history. Measures the cold render
// of the page and its JSON (first request after a start, and after the page changed), then a crowd:
// 100 concurrent connections for 30 s from a load generator in its own process (so the load does not
// delay the target's arrival times), with browsers' Accept-Encoding, on the HTML page and on the
// JSON in turn, with the probe schedule's start lag meanwhile. Each crowd runs twice: as fast as
// autocannon can (closed loop: the server's CPU is saturated) and at an offered 1,000 requests a
// second, evenly spaced (support/load.mjs); the same offered load on /healthz is the baseline
// of what any request costs the schedule.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crowd } from './support/crowd.mjs';
import { startBenchServer } from './support/server.mjs';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { fillRollups } from './support/rollups.mjs';
import { cpuMs, rssMiB } from './support/proc.mjs';
import { startTarget } from './support/target.mjs';
import { lagStats } from './scheduler.mjs';

const Database = createRequire(import.meta.url)('better-sqlite3');

const PASSWORD = 'bench password 12345';
const SENSORS = Number(process.env.BENCH_SENSORS ?? 1000);
const ON_PAGE = 200;
const INTERVAL_S = 20;
const DAYS = 90;
const CONNECTIONS = 100;
const LOAD_S = Number(process.env.BENCH_LOAD_SECONDS ?? 30);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, places = 1) => Math.round(value * 10 ** places) / 10 ** places;

/** One timed GET; the body is read so the time covers the whole answer. */
async function timedGet(url) {
  const started = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${body.slice(0, 200)}`);
  return { ms: round(performance.now() - started), bytes: Buffer.byteLength(body) };
}

export async function run() {
  const target = await startTarget();
  const env = { MONITOR_ADMIN_PASSWORD: PASSWORD };
  let server = await startBenchServer({ env });
  const dataDir = server.dataDir;
  try {
    let headers = await apiKeyFor(server.url, PASSWORD);
    const ids = await createSensors(
      server.url,
      headers,
      Array.from({ length: SENSORS }, (_, i) => ({
        name: `bench-${i}`,
        type: 'http',
        target: `${target.url}/s/${i}`,
        interval: INTERVAL_S,
        options: { timeout: 10 },
      })),
    );
    const page = await fetch(`${server.url}/api/status-pages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        slug: 'bench',
        title: 'Bench status',
        description: 'Two hundred sensors with ninety days of history.',
        published: true,
        history_days: DAYS,
        sections: Array.from({ length: 4 }, (_, s) => ({
          title: `Section ${s + 1}`,
          sensors: ids.slice(s * (ON_PAGE / 4), (s + 1) * (ON_PAGE / 4)),
        })),
      }),
    });
    if (page.status !== 201) throw new Error(`page create answered ${page.status}: ${await page.text()}`);
    const pageId = (await page.json()).id;

    // 90 days of history for every sensor, written while the server is stopped.
    await server.stop({ keepData: true });
    const now = Date.now();
    const db = new Database(join(dataDir, 'monitor.db'));
    fillRollups(db, ids, DAYS, now - (now % HOUR), now - (now % DAY));
    db.close();
    server = await startBenchServer({ env, dataDir });
    headers = await apiKeyFor(server.url, PASSWORD);

    const html = `${server.url}/status/bench`;
    const json = `${server.url}/api/public/status-pages/bench`;
    const cold = { html_after_start: await timedGet(html), json_after_start: await timedGet(json) };
    // A page change invalidates the cache: the next request renders again (warm database).
    const change = await fetch(`${server.url}/api/status-pages/${pageId}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ footer: 'changed' }),
    });
    if (change.status !== 200) throw new Error(`page update answered ${change.status}`);
    cold.html_after_change = await timedGet(html);
    cold.json_after_change = await timedGet(json);
    const warm = await timedGet(html);

    // Every loop has made its first probe before the lag is measured.
    await sleep(INTERVAL_S * 1000 + 2000);
    const pid = server.child.pid;
    const measure = async (url, rate) => {
      const since = performance.now();
      const cpu0 = cpuMs(pid);
      const headers = { 'accept-encoding': 'gzip, deflate, br', 'accept-language': 'en' };
      const load = await crowd({ url, connections: CONNECTIONS, seconds: LOAD_S, rate, headers });
      const cpu = cpuMs(pid) - cpu0;
      // Probes keep going for one more interval so every sensor's gap across the load is counted.
      await sleep(INTERVAL_S * 1000);
      const lag = lagStats(target.arrivals, INTERVAL_S * 1000, since);
      return {
        ...load,
        server_cpu_per_request_ms: round(cpu / load.total, 3),
        probe_lag_ms: { p50: round(lag.p50), p99: round(lag.p99), max: round(lag.max), missed: lag.missed },
        rss_mib: rssMiB(pid),
      };
    };
    const result = {
      sensors: SENSORS,
      interval_s: INTERVAL_S,
      on_page: ON_PAGE,
      history_days: DAYS,
      connections: CONNECTIONS,
      load_s: LOAD_S,
      cold_ms: cold,
      warm_html: warm,
      html_saturated: await measure(html),
      json_saturated: await measure(json),
      html_at_1000: await measure(html, 1000),
      json_at_1000: await measure(json, 1000),
      healthz_at_1000: await measure(`${server.url}/healthz`, 1000),
    };
    return result;
  } finally {
    await server.stop();
    await target.close();
  }
}

export function describe(r) {
  const one = (name, x) =>
    `  ${name}: ${x.requests_per_s} requests/s, latency p50 ${x.latency_ms.p50} / p99 ${x.latency_ms.p99} ms, ` +
    `${x.non_2xx} non-2xx, ${x.errors} errors; probe lag p50 ${x.probe_lag_ms.p50} / p99 ${x.probe_lag_ms.p99} ms, ` +
    `${x.probe_lag_ms.missed} missed; ${x.server_cpu_per_request_ms} ms CPU per request`;
  return [
    `status page: ${r.on_page} of ${r.sensors} sensors @ ${r.interval_s} s, ${r.history_days} days, ${r.connections} connections × ${r.load_s} s`,
    `  cold: HTML ${r.cold_ms.html_after_start.ms} ms (${r.cold_ms.html_after_start.bytes} bytes), JSON ${r.cold_ms.json_after_start.ms} ms after start; ` +
      `HTML ${r.cold_ms.html_after_change.ms} ms, JSON ${r.cold_ms.json_after_change.ms} ms after a page change; warm HTML ${r.warm_html.ms} ms`,
    one('/status/{slug} saturated', r.html_saturated),
    one('JSON saturated', r.json_saturated),
    one('/status/{slug} at 1,000/s', r.html_at_1000),
    one('JSON at 1,000/s', r.json_at_1000),
    one('/healthz at 1,000/s', r.healthz_at_1000),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run();
  console.log(describe(result));
  console.log(JSON.stringify(result));
}
