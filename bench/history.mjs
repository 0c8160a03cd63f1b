// History benchmark (issue 6): 1,000 http sensors with 7 days of raw results at a 60 s interval
// (about 10 million rows, written in time order as the server writes them) plus a year of hourly
// and daily buckets. Measures uptime reads for 1y and 7d, /api/summary, one maintenance pass over a
// day of new results (with the probe start lag while it runs), database bytes per raw result, and
// the time to rebuild runtime state at start.
import { createRequire } from 'node:module';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, startBenchServer } from './support/server.mjs';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { rssMiB } from './support/proc.mjs';
import { startTarget } from './support/target.mjs';
import { backendEnv, benchBackend, stopBackend } from './support/pg-backend.mjs';
import { spawnSync } from 'node:child_process';
import pg from 'pg';

const Database = createRequire(import.meta.url)('better-sqlite3');

const PASSWORD = 'bench password 12345';
const SENSORS = 1000;
const INTERVAL_S = 60;
const RAW_DAYS = 7;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, places = 1) => Math.round(value * 10 ** places) / 10 ** places;

/** A plausible result: mostly 200s with a little jitter, one failure in 200. */
function sample(sensor, ts) {
  const h = (Math.imul(sensor + 1, 2654435761) ^ Math.imul(ts / 60000, 40503)) >>> 0;
  if (h % 200 === 0) return [0, 503, null, 'HTTP 503'];
  return [1, 200, Math.round((5 + (h % 9000) / 100) * 100) / 100, 'HTTP 200'];
}

/** Raw results for the last RAW_DAYS in time order (every sensor's minute, then the next minute). */
function fillRaw(db, ids, now) {
  const insert = db.prepare(
    'INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const start = now - RAW_DAYS * DAY;
  const minutes = (RAW_DAYS * DAY) / 60000;
  const offsets = ids.map((_, i) => (i * 59_973) % 60_000);
  const batch = db.transaction((from, to) => {
    for (let m = from; m < to; m++)
      for (let i = 0; i < ids.length; i++) {
        const ts = start + m * 60000 + offsets[i];
        insert.run(ids[i], ts, ...sample(i, ts));
      }
  });
  for (let m = 0; m < minutes; m += 60) batch(m, Math.min(m + 60, minutes));
  return minutes * ids.length;
}

/** A year of daily buckets before `dailyThrough` and of hourly buckets before `hourlyThrough`. */
function fillRollups(db, ids, hourlyThrough, dailyThrough) {
  const hourly = db.prepare(
    'INSERT INTO rollup_hourly (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max) VALUES (?, ?, 60, ?, ?, ?, ?)',
  );
  const daily = db.prepare(
    'INSERT INTO rollup_daily (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max) VALUES (?, ?, 1440, ?, ?, ?, ?)',
  );
  const firstDay = dailyThrough - 365 * DAY;
  const fill = db.transaction((id, i) => {
    for (let day = firstDay; day < dailyThrough; day += DAY) {
      const up = 1440 - ((i + day / DAY) % 7 === 0 ? 3 : 0);
      daily.run(id, day, up, up * 40.5, 5, 95);
    }
    for (let hour = firstDay; hour < hourlyThrough; hour += HOUR) {
      const up = 60 - ((i + hour / HOUR) % 97 === 0 ? 3 : 0);
      hourly.run(id, hour, up, up * 40.5, 5, 95);
    }
  });
  ids.forEach((id, i) => fill(id, i));
}

function setMarks(db, hourlyThrough, dailyThrough) {
  const set = db.prepare('INSERT OR REPLACE INTO settings (key, value, updated_at) VALUES (?, ?, ?)');
  set.run('history.hourly_through', JSON.stringify(hourlyThrough), Date.now());
  set.run('history.daily_through', JSON.stringify(dailyThrough), Date.now());
}

async function timed(url, headers, paths) {
  const times = [];
  for (const path of paths) {
    const started = performance.now();
    const res = await fetch(`${url}${path}`, { headers });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    times.push(performance.now() - started);
  }
  return { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), n: times.length };
}

function logLines(server) {
  return server.lines.map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      return {};
    }
  });
}

async function waitForLog(server, msg, timeoutMs, after = 0) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = logLines(server).filter((l) => l.msg === msg && Date.parse(l.time) >= after);
    if (found.length > 0) return found[0];
    if (Date.now() > until) throw new Error(`no "${msg}" log line within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** |gap between two probes of one sensor − interval| for gaps that end inside [from, to]. */
function lagDuring(arrivals, from, to) {
  const lags = [];
  for (const times of arrivals.values())
    for (let i = 1; i < times.length; i++)
      if (times[i] >= from && times[i] <= to)
        lags.push(Math.abs(times[i] - times[i - 1] - INTERVAL_S * 1000));
  return { p99: round(percentile(lags, 99)), max: round(Math.max(...lags)), probes: lags.length };
}

/** Copies the filled SQLite file into PostgreSQL with the CLI, as an operator moving would. */
function moveToPostgres(dataDir, url) {
  const started = performance.now();
  const moved = spawnSync(
    process.execPath,
    ['dist/apps/monitor/main.js', 'migrate-storage', '--data-dir', dataDir, '--to', url],
    { encoding: 'utf8', env: { ...process.env, PUID: '0' } },
  );
  if (moved.status !== 0) throw new Error(`migrate-storage failed: ${moved.stdout}${moved.stderr}`);
  return round((performance.now() - started) / 1000);
}

/** Winds the rollup watermarks back on PostgreSQL (SQLite: setMarks on the file). */
async function setMarksPg(url, hourlyThrough, dailyThrough) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const [key, value] of [
      ['history.hourly_through', hourlyThrough],
      ['history.daily_through', dailyThrough],
    ])
      await client.query('UPDATE settings SET value = $1 WHERE key = $2', [JSON.stringify(value), key]);
    const { rows } = await client.query(
      `SELECT pg_total_relation_size('probe_results')::bigint AS bytes, pg_database_size(current_database())::bigint AS db`,
    );
    return { rawBytes: Number(rows[0].bytes), databaseBytes: Number(rows[0].db) };
  } finally {
    await client.end();
  }
}

export async function run() {
  try {
    return await runOn(benchBackend());
  } finally {
    await stopBackend();
  }
}

async function runOn(backend) {
  const target = await startTarget();
  const dataDir = mkdtempSync(join(tmpdir(), 'monitor-bench-history-'));
  const configFile = join(dataDir, 'monitor.yaml');
  // A year of hourly buckets is kept, so range=1y reads 8,760 buckets: the heaviest tier read.
  writeFileSync(configFile, 'retention:\n  raw: 7d\n  hourly: 365d\n');
  const env = { MONITOR_ADMIN_PASSWORD: PASSWORD, MONITOR_CONFIG: configFile };
  const postgresUrl = backend === 'postgres' ? (await backendEnv()).MONITOR_DATABASE_URL : null;

  // 1. Sensors through the API, then stop and write the history straight into the database.
  let server = await startBenchServer({ env, dataDir });
  const headers = await apiKeyFor(server.url, PASSWORD);
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
  await server.stop({ keepData: true });

  const dbPath = join(dataDir, 'monitor.db');
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('DELETE FROM probe_results; DELETE FROM rollup_hourly; DELETE FROM rollup_daily');
  const now = Date.now();
  const fillStarted = performance.now();
  const rawRows = fillRaw(db, ids, now);
  // Rollups stop a day back: the first pass has one day of new results to summarise.
  const hourlyThrough = Math.floor((now - DAY) / HOUR) * HOUR;
  const dailyThrough = Math.floor(hourlyThrough / DAY) * DAY;
  fillRollups(db, ids, hourlyThrough, dailyThrough);
  setMarks(db, hourlyThrough, dailyThrough);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const fillSeconds = round((performance.now() - fillStarted) / 1000);
  const rawBytes = db
    .prepare("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name = 'probe_results'")
    .get().bytes;
  const hourlyRows = db.prepare('SELECT count(*) AS n FROM rollup_hourly').get().n;
  let fileBytes = statSync(dbPath).size;
  db.close();
  console.log(`history: ${rawRows} raw results, ${hourlyRows} hourly buckets written in ${fillSeconds} s`);
  let moveSeconds = null;
  let storedRawBytes = rawBytes;
  if (postgresUrl) {
    // The same installation on PostgreSQL: moved with migrate-storage, then served from there.
    moveSeconds = moveToPostgres(dataDir, postgresUrl);
    const sizes = await setMarksPg(postgresUrl, hourlyThrough, dailyThrough);
    storedRawBytes = sizes.rawBytes;
    fileBytes = sizes.databaseBytes;
    env.MONITOR_DATABASE_URL = postgresUrl;
    console.log(`history: moved to PostgreSQL with migrate-storage in ${moveSeconds} s`);
  }

  // 2. Start on the full database: runtime rebuild, then the start pass over a day of results.
  const started = performance.now();
  server = await startBenchServer({ env, dataDir });
  const readyMs = round(performance.now() - started, 0);
  try {
    const rebuilt = await waitForLog(server, 'runtime state rebuilt', 10_000);
    const startPass = await waitForLog(server, 'history maintenance pass', 120_000);

    // 3. Reads, with the scheduler probing all 1,000 sensors meanwhile.
    const pick = (n) => Array.from({ length: n }, (_, i) => ids[(i * 7919) % ids.length]);
    await timed(
      server.url,
      headers,
      pick(20).map((id) => `/api/sensors/${id}/uptime?range=7d`),
    ); // warm-up
    const uptime1y = await timed(
      server.url,
      headers,
      pick(200).map((id) => `/api/sensors/${id}/uptime?range=1y`),
    );
    const uptime7d = await timed(
      server.url,
      headers,
      pick(200).map((id) => `/api/sensors/${id}/uptime?range=7d`),
    );
    const series7d = await timed(
      server.url,
      headers,
      pick(100).map((id) => `/api/sensors/${id}/series?range=7d`),
    );
    const series90d = await timed(
      server.url,
      headers,
      pick(100).map((id) => `/api/sensors/${id}/series?range=90d`),
    );
    const series1y = await timed(
      server.url,
      headers,
      pick(100).map((id) => `/api/sensors/${id}/series?range=1y`),
    );
    const summary = await timed(server.url, headers, Array(50).fill('/api/summary'));
    const settings = await timed(server.url, headers, Array(10).fill('/api/settings'));

    // 4. A pass over one day of new results while every sensor probes: wind the watermarks back a
    //    day, wait for the five-minute pass, and time the probes that started while it ran.
    if (postgresUrl) {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      const { rows } = await client.query("SELECT value FROM settings WHERE key = 'history.hourly_through'");
      await client.end();
      const current = JSON.parse(rows[0].value);
      await setMarksPg(postgresUrl, current - DAY, Math.floor((current - DAY) / DAY) * DAY);
    } else {
      const side = new Database(dbPath);
      side.pragma('busy_timeout = 5000');
      const current = JSON.parse(
        side.prepare("SELECT value FROM settings WHERE key = 'history.hourly_through'").pluck().get(),
      );
      setMarks(side, current - DAY, Math.floor((current - DAY) / DAY) * DAY);
      side.close();
    }
    const rewound = Date.now();
    const timedPass = await waitForLog(server, 'history maintenance pass', 6 * 60_000, rewound);
    const passEnd = performance.now() - (Date.now() - Date.parse(timedPass.time));
    const lag = lagDuring(target.arrivals, passEnd - timedPass.duration_ms, passEnd);
    const steady = lagDuring(target.arrivals, passEnd - 120_000, passEnd - timedPass.duration_ms - 1000);
    const rss = rssMiB(server.child.pid);

    return {
      backend,
      sensors: SENSORS,
      raw_results: rawRows,
      hourly_buckets: hourlyRows,
      moved_to_postgres_s: moveSeconds,
      raw_bytes_per_result: round(storedRawBytes / rawRows, 1),
      database_mib: round(fileBytes / 1048576, 0),
      start_ready_ms: readyMs,
      runtime_rebuild_ms: rebuilt.ms,
      start_pass: pick1(startPass),
      uptime_1y_ms: uptime1y,
      uptime_7d_ms: uptime7d,
      series_7d_ms: series7d,
      series_90d_ms: series90d,
      series_1y_ms: series1y,
      summary_ms: summary,
      settings_ms: settings,
      day_pass: { ...pick1(timedPass), probe_lag_during_ms: lag, probe_lag_before_ms: steady },
      rss_mib: rss,
    };
  } finally {
    await server.stop();
    await target.close();
  }
}

const pick1 = (line) => ({
  duration_ms: line.duration_ms,
  hourly_buckets: line.hourly_buckets,
  daily_buckets: line.daily_buckets,
  pruned_raw: line.pruned_raw,
  chunks: line.chunks,
  max_chunk_ms: line.max_chunk_ms,
});

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(), null, 2));
