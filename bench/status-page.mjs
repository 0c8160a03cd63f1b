// Public status page benchmark (issue 17): 1,000 http sensors probing a local target every 20 s,
// a published page listing 200 of them with 90 days of rollups. Reports the cold render time of
// the page (first request after start, nothing cached), requests per second and latency p99 for
// /status/{slug} and its JSON from autocannon with 100 connections for BENCH_SECONDS (30) each,
// browsers' Accept-Encoding, and the probe schedule's start lag p99 meanwhile.
import { get } from 'node:http';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { fillRollups } from './support/rollups.mjs';
import { startBenchServer } from './support/server.mjs';
import { startTarget } from './support/target.mjs';
import { lagStats } from './scheduler.mjs';

const PASSWORD = 'bench password 12345';
const SENSORS = 1000;
const ON_PAGE = 200;
const INTERVAL_S = 20;
const HOUR = 3_600_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The body's bytes as sent (fetch would decompress them). */
function rawBytes(url, encoding) {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': encoding } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve(bytes));
    }).on('error', reject);
  });
}

async function load(url, seconds) {
  const result = await autocannon({
    url,
    connections: 100,
    duration: seconds,
    headers: { 'accept-encoding': 'gzip, deflate, br', 'accept-language': 'en' },
  });
  return {
    requests_per_s: Math.round(result.requests.average),
    latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
    non_2xx: result.non2xx,
    errors: result.errors,
    bytes_per_s: Math.round(result.throughput.average),
  };
}

export async function run() {
  const seconds = Number(process.env.BENCH_SECONDS ?? 30);
  const target = await startTarget();
  const env = { MONITOR_ADMIN_PASSWORD: PASSWORD };
  let server = await startBenchServer({ env });
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
    const shown = ids.slice(0, ON_PAGE);
    // 90 days of rollups for the page's sensors, written while the server is stopped.
    await server.stop({ keepData: true });
    const db = new Database(join(server.dataDir, 'monitor.db'));
    const now = Date.now();
    fillRollups(db, shown, 90, now - (now % HOUR), now - (now % (24 * HOUR)));
    db.close();
    server = await startBenchServer({ env, dataDir: server.dataDir });
    headers = await apiKeyFor(server.url, PASSWORD);
    const sections = Array.from({ length: 4 }, (_, s) => ({
      title: `Section ${s + 1}`,
      sensors: shown.slice(s * 50, s * 50 + 50),
    }));
    const created = await fetch(`${server.url}/api/status-pages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ slug: 'bench', title: 'Bench', published: true, history_days: 90, sections }),
    });
    if (created.status !== 201) throw new Error(`page: ${created.status} ${await created.text()}`);
    // Every loop makes its first probe within one interval.
    await sleep(INTERVAL_S * 1000 + 2000);

    const coldStarted = performance.now();
    const coldBytes = await rawBytes(`${server.url}/status/bench`, 'br');
    const coldMs = performance.now() - coldStarted;
    const plain = await (
      await fetch(`${server.url}/status/bench`, { headers: { 'accept-encoding': 'identity' } })
    ).text();

    const since = performance.now();
    const html = await load(`${server.url}/status/bench`, seconds);
    const json = await load(`${server.url}/api/public/status-pages/bench`, seconds);
    const lag = lagStats(target.arrivals, INTERVAL_S * 1000, since);
    return {
      sensors: SENSORS,
      on_page: ON_PAGE,
      cold_render_ms: round(coldMs),
      html_bytes: plain.length,
      html_br_bytes: coldBytes,
      html,
      json,
      probe_lag_ms: { p50: round(lag.p50), p99: round(lag.p99), max: round(lag.max) },
      missed_cycles: lag.missed,
    };
  } finally {
    await server.stop();
    await target.close();
  }
}

export function describe(r) {
  const one = (name, x) =>
    `${name}: ${x.requests_per_s} requests/s, p50 ${x.latency_ms.p50} ms, p99 ${x.latency_ms.p99} ms, ${x.non_2xx} non-2xx, ${x.errors} errors`;
  return [
    `status page (${r.on_page} of ${r.sensors} sensors @ ${INTERVAL_S} s, 90 days): cold render ${r.cold_render_ms} ms; HTML ${r.html_bytes} bytes (${r.html_br_bytes} Brotli)`,
    `  ${one('/status/{slug}', r.html)}`,
    `  ${one('JSON', r.json)}`,
    `  probe start lag meanwhile: p50 ${r.probe_lag_ms.p50} ms, p99 ${r.probe_lag_ms.p99} ms, max ${r.probe_lag_ms.max} ms; missed cycles ${r.missed_cycles}`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(describe(await run()));
