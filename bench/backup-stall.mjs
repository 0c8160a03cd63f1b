// Event-loop stalls during a large backup and restore, seen from outside: 1,000 http sensors with
// 89 days of hourly buckets (2.14 million, written straight into the database as bench/backup.mjs
// does), 20 more sensors probing every second. While the history backup downloads and while that
// document is restored into the same installation, a separate thread asks GET /healthz every
// 20 ms (the longest answer and the longest gap between answers are the stall seen by clients),
// and the probe target records when each 1-second probe arrives (the longest gap between two
// probes of one sensor, less the interval, is how late probes started).
// BENCH_MAIN=path/to/main.js runs it against another build; BENCH_DAYS=30 with less history.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { apiKeyFor, createSensors, restoreFile } from './support/api.mjs';
import { startBenchServer } from './support/server.mjs';
import { fillRollups } from './support/rollups.mjs';
import { startTarget } from './support/target.mjs';

const Database = createRequire(import.meta.url)('better-sqlite3');

const PASSWORD = 'bench password 12345';
const SENSORS = 1000;
const FAST_SENSORS = 20;
const DAYS = Number(process.env.BENCH_DAYS ?? 89);
const HOUR = 3_600_000;
const POLL_MS = 20;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls /healthz every POLL_MS from its own thread, so the bench's own work cannot delay it. */
const POLLER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let worst = 0, widest = 0, widestAt = 0, last = performance.now(), answers = 0, stop = false;
parentPort.on('message', () => { stop = true; });
(async function loop() {
  while (!stop) {
    const sent = performance.now();
    await new Promise((resolve) => {
      http.get(workerData.url + '/healthz', { agent }, (res) => { res.resume(); res.on('end', resolve); })
        .on('error', resolve);
    });
    const now = performance.now();
    worst = Math.max(worst, now - sent);
    if (now - last > widest) { widest = now - last; widestAt = Date.now(); }
    last = now;
    answers++;
    await new Promise((r) => setTimeout(r, Math.max(0, ${POLL_MS} - (performance.now() - sent))));
  }
  parentPort.postMessage({ worst, widest, widestAt, answers });
})();
`;

/** Runs `work` while /healthz is polled and 1-second probes are watched. */
async function watched(url, target, fastKeys, work) {
  for (const key of fastKeys) target.arrivals.set(key, (target.arrivals.get(key) ?? []).slice(-1));
  const poller = new Worker(POLLER, { eval: true, workerData: { url } });
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  // One more second so that a probe held back by a stall at the very end is counted.
  await sleep(1500);
  poller.postMessage('stop');
  const polled = await new Promise((resolve) => poller.once('message', resolve));
  await poller.terminate();
  let lag = 0;
  for (const key of fastKeys) {
    // Every gap that ends inside the run, including the one since the last probe before it.
    const times = target.arrivals.get(key);
    for (let i = 1; i < times.length; i++)
      if (times[i] >= started) lag = Math.max(lag, times[i] - times[i - 1] - 1000);
  }
  return {
    result,
    ms: Math.round(ms),
    healthz_max_latency_ms: Math.round(polled.worst),
    healthz_max_gap_ms: Math.round(polled.widest),
    healthz_max_gap_ended_at: new Date(polled.widestAt).toISOString(),
    healthz_answers: polled.answers,
    probe_start_lag_max_ms: Math.round(Math.max(0, lag)),
  };
}

function fillHourly(db, ids) {
  const through = Math.floor(Date.now() / HOUR) * HOUR;
  fillRollups(db, ids, DAYS, through);
  db.prepare('INSERT OR REPLACE INTO settings (key, value, updated_at) VALUES (?, ?, ?)').run(
    'history.hourly_through',
    JSON.stringify(through),
    Date.now(),
  );
}

/**
 * Downloads the history backup as fast as it comes (as curl does: a slow reader would give the
 * server turns anyway), in a thread of its own so the probe target here keeps its own timing.
 */
function download(url, headers, file) {
  const worker = new Worker(
    `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const http = require('node:http');
http.get(workerData.url + '/api/backup?scope=history&days=90', { headers: workerData.headers }, (res) => {
  if (res.statusCode !== 200) return parentPort.postMessage({ error: 'backup answered ' + res.statusCode });
  const fd = fs.openSync(workerData.file, 'w');
  let bytes = 0;
  res.on('data', (chunk) => { fs.writeSync(fd, chunk); bytes += chunk.length; });
  res.on('end', () => { fs.closeSync(fd); parentPort.postMessage({ bytes }); });
}).on('error', (error) => parentPort.postMessage({ error: error.message }));
`,
    { eval: true, workerData: { url, headers, file } },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (reply) => {
      void worker.terminate();
      if (reply.error) reject(new Error(reply.error));
      else resolve(reply.bytes);
    });
    worker.once('error', reject);
  });
}

export async function run() {
  const main = process.env.BENCH_MAIN;
  const target = await startTarget();
  const env = { MONITOR_ADMIN_PASSWORD: PASSWORD };
  const work = mkdtempSync(join(tmpdir(), 'monitor-bench-stall-'));
  const documentFile = join(work, 'backup.json');
  let server = await startBenchServer({ env, main });
  try {
    let headers = await apiKeyFor(server.url, PASSWORD);
    const ids = await createSensors(
      server.url,
      headers,
      Array.from({ length: SENSORS }, (_, i) => ({
        name: `bench-${i}`,
        type: 'http',
        target: `${target.url}/s/${i}`,
        interval: 60,
        options: { timeout: 10 },
      })),
    );
    const fastKeys = Array.from({ length: FAST_SENSORS }, (_, i) => `fast-${i}`);
    await createSensors(
      server.url,
      headers,
      fastKeys.map((key) => ({
        name: key,
        type: 'http',
        target: `${target.url}/s/${key}`,
        interval: 1,
        options: { timeout: 1 },
      })),
    );
    await server.stop({ keepData: true });
    const db = new Database(join(server.dataDir, 'monitor.db'));
    db.pragma('journal_mode = WAL');
    fillHourly(db, ids);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const buckets = db.prepare('SELECT count(*) AS n FROM rollup_hourly').get().n;
    db.close();
    console.log(
      `backup-stall: ${SENSORS} sensors, ${buckets} hourly buckets; ${FAST_SENSORS} sensors at 1 s`,
    );

    server = await startBenchServer({ env, dataDir: server.dataDir, main });
    headers = await apiKeyFor(server.url, PASSWORD);
    await sleep(3000);
    const idle = await watched(server.url, target, fastKeys, () => sleep(3000));
    console.log(
      `backup-stall: idle: healthz worst ${idle.healthz_max_latency_ms} ms, probe lag ${idle.probe_start_lag_max_ms} ms`,
    );

    const backup = await watched(server.url, target, fastKeys, () =>
      download(server.url, headers, documentFile),
    );
    console.log(
      `backup-stall: backup ${(backup.result / 1048576).toFixed(1)} MiB in ${backup.ms} ms: healthz worst ${backup.healthz_max_latency_ms} ms, widest gap ${backup.healthz_max_gap_ms} ms, probe lag ${backup.probe_start_lag_max_ms} ms`,
    );

    const restore = await watched(server.url, target, fastKeys, () =>
      restoreFile(server.url, headers, documentFile),
    );
    console.log(
      `backup-stall: restore in ${restore.ms} ms: healthz worst ${restore.healthz_max_latency_ms} ms, widest gap ${restore.healthz_max_gap_ms} ms, probe lag ${restore.probe_start_lag_max_ms} ms`,
    );
    const restoreLog = server.lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'restore')
      .at(-1);
    const strip = ({ result: _result, ...figures }) => figures;
    return {
      sensors: SENSORS,
      hourly_buckets: buckets,
      document_mib: Math.round((backup.result / 1048576) * 10) / 10,
      idle: strip(idle),
      backup: strip(backup),
      restore: { ...strip(restore), counts: restore.result.counts, log: restoreLog },
    };
  } finally {
    await server.stop();
    await target.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run(), null, 2));
}
