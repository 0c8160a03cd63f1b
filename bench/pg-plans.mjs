// node bench/pg-plans.mjs: the plans PostgreSQL runs for every filter of the API's list endpoints on
// a filled database (issue 15). A throw-away cluster (the tests' harness), a database filled by SQL
// — 1,000 sensors, 100,000 incidents with varied causes and notes, a week of raw results (one per
// sensor every PLANS_INTERVAL_S seconds, default 300), 90 days of hourly and a year of daily buckets —
// and the built server (npm run build:server) answering real requests. auto_explain logs every
// statement the server runs with EXPLAIN (ANALYZE, BUFFERS), so the plans are those of the app's own
// SQL with its own parameters. Runs twice: without the indexes of migration 1764000000003 and
// without pg_trgm ("before"), then with them ("after"); prints each statement with its plan and time
// and writes the whole report to bench/results/pg-plans.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { apiKeyFor } from './support/api.mjs';
import { startPostgresCluster } from './support/pg-harness.mjs';
import { startBenchServer } from './support/server.mjs';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { apiFilterIndexStatements, TRIGRAM_INDEXES } = require(
  join(root, 'apps/monitor/src/core/database/migrations/1764000000003-api-filter-indexes.ts'),
);

const PASSWORD = 'bench password 12345';
const SENSORS = 1000;
const INCIDENTS = 100_000;
const INTERVAL_S = Number(process.env.PLANS_INTERVAL_S ?? 300);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Tables whose full scan would grow with the installation. */
const BIG = new Set(['probe_results', 'rollup_hourly', 'rollup_daily', 'incidents', 'sensors']);

const cluster = await startPostgresCluster();
const url = await cluster.createDatabase('plans');
const admin = new pg.Client({ connectionString: url });
try {
  await admin.connect();
  const now = Date.now();
  // The server creates the schema, the first account and the API key; the rest is SQL.
  let server = await startBenchServer({
    env: { MONITOR_ADMIN_PASSWORD: PASSWORD, MONITOR_DATABASE_URL: url },
  });
  const headers = await apiKeyFor(server.url, PASSWORD);
  await server.stop();
  // The migration built its indexes on empty tables; filling is faster without them (built again below).
  for (const name of indexNames()) await admin.query(`DROP INDEX IF EXISTS "${name}"`);
  const filled = performance.now();
  await fill(admin, now);
  console.log(`filled in ${Math.round((performance.now() - filled) / 1000)} s: ${await counts(admin)}`);

  const probes = requests();
  const report = {};
  for (const phase of ['before', 'after']) {
    const indexes = indexNames();
    if (phase === 'before') {
      for (const name of indexes) await admin.query(`DROP INDEX IF EXISTS "${name}"`);
      // Without the extension the server's start does not build the trigram indexes again.
      await admin.query('DROP EXTENSION IF EXISTS pg_trgm');
    } else {
      for (const statement of apiFilterIndexStatements('postgres')) await admin.query(statement);
      await admin.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      for (const index of TRIGRAM_INDEXES) await admin.query(index.sql);
    }
    await admin.query('VACUUM ANALYZE');
    await explainEverything(admin);
    // Debug: a maintenance pass with nothing to do logs at debug level only.
    server = await startBenchServer({ env: { MONITOR_DATABASE_URL: url, MONITOR_LOG_LEVEL: 'debug' } });
    // The start's maintenance pass runs in the background: its statements are not the requests'.
    while (!server.lines.some((line) => line.includes('"history maintenance pass"')))
      await new Promise((resolve) => setTimeout(resolve, 200));
    report[phase] = [];
    for (const probe of probes) report[phase].push(await measure(server.url, headers, probe));
    await server.stop();
  }
  print(report);
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(join(root, 'bench/results/pg-plans.json'), `${JSON.stringify(report, null, 1)}\n`);
} finally {
  await admin.end().catch(() => undefined);
  await cluster.stop();
}

/** Index names the migration's PostgreSQL statements create. */
function indexNames() {
  const plain = apiFilterIndexStatements('postgres').flatMap((sql) =>
    [...sql.matchAll(/CREATE (?:UNIQUE )?INDEX "([^"]+)"/g)].map((m) => m[1]),
  );
  return [...plain, ...TRIGRAM_INDEXES.map((index) => index.name)];
}

async function fill(db, now) {
  const week = now - 7 * DAY + HOUR;
  const hourlyThrough = Math.floor((now - 2 * HOUR) / HOUR) * HOUR;
  const dailyThrough = Math.floor(hourlyThrough / DAY) * DAY;
  await db.query(
    `INSERT INTO sites (name, kind, lat, lon, created_at, updated_at)
    SELECT 'site-' || g, CASE WHEN g % 3 = 0 THEN 'external' ELSE 'local' END, g, g, $1, $1
    FROM generate_series(1, 20) g`,
    [now],
  );
  await db.query(
    `INSERT INTO channels (name, type, config, created_at, updated_at)
    SELECT 'hook-' || g, 'webhook', '{"url":"http://127.0.0.1:9/"}', $1, $1 FROM generate_series(1, 20) g`,
    [now],
  );
  // Paused sensors: nothing probes during the measurement.
  const regions = `(ARRAY['eu','us','ap','sa'])[1 + g % 4]`;
  await db.query(
    `INSERT INTO sensors (name, type, target, "interval", group_name, tags, site_id, enabled,
      sort_order, status, created_at, updated_at)
    SELECT (ARRAY['shop','api','db','cdn','mail'])[1 + g % 5] || '-' || ${regions} || '-' || lpad(g::text, 4, '0'),
      'http', 'https://' || ${regions} || '.host-' || g || '.example.net/health', 60,
      'team-' || (g % 12), '["' || ${regions} || '","tier-' || (g % 3) || '"]',
      CASE WHEN g % 4 = 0 THEN NULL ELSE 1 + g % 20 END, false, g, 'paused', $1, $1
    FROM generate_series(1, ${SENSORS}) g`,
    [now],
  );
  await db.query(`INSERT INTO sensor_channels (sensor_id, channel_id)
    SELECT s.id, c.id FROM sensors s JOIN channels c ON c.id IN (1 + s.id % 20, 1 + (s.id + 7) % 20)`);
  await db.query(
    `INSERT INTO users (username, password_hash, role, created_at, updated_at)
    SELECT 'user-' || g, 'x', 'viewer', $1, $1 FROM generate_series(1, 10) g`,
    [now],
  );
  await db.query(
    `INSERT INTO maintenance_windows (name, starts_at, ends_at, all_sensors, created_at)
    SELECT 'window-' || g, $1::bigint + g * ${HOUR}, $1::bigint + g * ${HOUR} + ${HOUR}, g % 5 = 0, $1::bigint FROM generate_series(1, 50) g`,
    [now],
  );
  await db.query(`INSERT INTO maintenance_window_sensors (window_id, sensor_id)
    SELECT w.id, 1 + (w.id * 37 + k) % ${SENSORS} FROM maintenance_windows w, generate_series(1, 10) k WHERE NOT w.all_sensors`);
  // A week of raw results, one failure in 200 with a message of its own kind.
  await db.query(`INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message)
    SELECT s.id, t + (s.id * 7919) % ${INTERVAL_S * 1000}, h % 200 <> 0,
      CASE WHEN h % 200 = 0 THEN 503 ELSE 200 END,
      CASE WHEN h % 200 = 0 THEN NULL ELSE 5 + (h % 9000) / 100.0 END,
      CASE WHEN h % 200 <> 0 THEN 'HTTP 200' WHEN h % 3 = 0 THEN 'HTTP 503'
        WHEN h % 3 = 1 THEN 'connect ECONNREFUSED 10.' || (s.id % 250) || '.0.' || (h % 250) || ':443'
        ELSE 'timeout after 10 s' END
    FROM sensors s, generate_series(${week}::bigint, ${now - HOUR}::bigint, ${INTERVAL_S * 1000}::bigint) t,
      LATERAL (SELECT abs(hashint8(t + s.id)) AS h) x`);
  for (const [tier, start, stop, step, count] of [
    ['hourly', dailyThrough - 90 * DAY, hourlyThrough, HOUR, 60],
    ['daily', dailyThrough - 365 * DAY, dailyThrough, DAY, 1440],
  ])
    await db.query(`INSERT INTO rollup_${tier} (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
      SELECT s.id, b, ${count}, ${count} - (abs(hashint8(b + s.id)) % 3)::int, ${count} * 40.5, 5, 95
      FROM sensors s, generate_series(${start}::bigint, ${stop - step}::bigint, ${step}::bigint) b`);
  // A year of incidents: varied causes, a few notes, one open incident on each of 20 sensors.
  await db.query(`INSERT INTO incidents (sensor_id, started_at, resolved_at, cause, note, acknowledged, acknowledged_by, reconstructed)
    SELECT 1 + (g * 7919) % ${SENSORS}, ${now} - (g::bigint * ${Math.floor((365 * DAY) / INCIDENTS)}) - 60000,
      ${now} - (g::bigint * ${Math.floor((365 * DAY) / INCIDENTS)}) - 60000 + 60000 * (1 + g % 240),
      (ARRAY['HTTP 500', 'HTTP 502', 'HTTP 503', 'HTTP 404', 'timeout after 10 s',
        'certificate signed by unknown authority', 'read ECONNRESET'])[1 + g % 7] ||
      CASE g % 5 WHEN 0 THEN ' from 10.' || (g % 250) || '.' || (g % 97) || '.' || (g % 13)
        WHEN 1 THEN ': lookup host-' || (g % 997) || '.example.net: no such host' ELSE '' END ||
      CASE WHEN g % 50 = 0 THEN ' (reconstructed after restart)' ELSE '' END,
      CASE WHEN g % 40 = 0 THEN 'handled in ticket OPS-' || g WHEN g % 97 = 0 THEN 'closed by maintenance window window-' || (g % 50) ELSE '' END,
      g % 40 = 0, CASE WHEN g % 40 = 0 THEN 'user-' || (g % 10) END, g % 50 = 0
    FROM generate_series(1, ${INCIDENTS}) g`);
  await db.query(`INSERT INTO incidents (sensor_id, started_at, cause)
    SELECT g, ${now} - g * 60000, 'HTTP 503' FROM generate_series(1, 20) g`);
  await db.query(
    `INSERT INTO settings (key, value, updated_at) VALUES ('history.hourly_through', $1, $3),
    ('history.daily_through', $2, $3) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [JSON.stringify(hourlyThrough), JSON.stringify(dailyThrough), now],
  );
}

async function counts(db) {
  const tables = ['sensors', 'incidents', 'probe_results', 'rollup_hourly', 'rollup_daily'];
  const parts = [];
  for (const t of tables)
    parts.push(`${t} ${(await db.query(`SELECT count(*)::int AS n FROM ${t}`)).rows[0].n}`);
  return parts.join(', ');
}

/** auto_explain for every later session of the database: every statement, analysed, with buffers. */
async function explainEverything(db) {
  for (const [key, value] of [
    ['session_preload_libraries', 'auto_explain'],
    ['auto_explain.log_min_duration', '0'],
    ['auto_explain.log_analyze', 'on'],
    ['auto_explain.log_buffers', 'on'],
    ['auto_explain.log_timing', 'on'],
    ['auto_explain.log_format', 'json'],
  ])
    await db.query(`ALTER DATABASE plans SET ${key} = '${value}'`);
}

/** Every GET list endpoint and each of its filters (the sensor is one with a long history). */
function requests() {
  const s = '/api/sensors/42';
  const incidents = (query) => `/api/incidents${query}`;
  return [
    ['sensors', '/api/sensors'],
    ['summary', '/api/summary'],
    ['one sensor', s],
    ['results', `${s}/results?limit=40`],
    ['results 1000', `${s}/results?limit=1000`],
    ...['24h', '7d', '30d', '1y', 'all'].flatMap((r) => [
      [`series ${r}`, `${s}/series?range=${r}`],
      [`uptime ${r}`, `${s}/uptime?range=${r}`],
    ]),
    ['sensor incidents', `${s}/incidents?limit=50`],
    ['incidents', incidents('')],
    ['incidents limit 1000', incidents('?limit=1000')],
    ['incidents state=open', incidents('?state=open')],
    ['incidents open=1', incidents('?open=1')],
    ['incidents state=resolved', incidents('?state=resolved')],
    ['incidents sensor', incidents('?sensor=42')],
    ['incidents range=24h', incidents('?range=24h')],
    ['incidents range=7d state=open', incidents('?range=7d&state=open')],
    ['incidents since', incidents(`?since=${new Date(Date.now() - 3 * DAY).toISOString()}`)],
    ['incidents q common (timeout)', incidents('?q=timeout')],
    ['incidents q rare (OPS-4240)', incidents('?q=OPS-4240')],
    ['incidents q sensor name', incidents('?q=shop-eu-0420')],
    ['incidents q no hit', incidents('?q=nothing-matches-this')],
    ['incidents q + sensor', incidents('?q=HTTP&sensor=42')],
    ['incidents q two letters', incidents('?q=s ')],
    ['search (common)', '/api/search?q=HTTP 503'],
    ['search (rare)', '/api/search?q=OPS-4240'],
    ['search (no hit)', '/api/search?q=nothing-matches-this'],
    ['search (two letters)', '/api/search?q=zq'],
    ['maintenance', '/api/maintenance'],
    ['sites', '/api/sites'],
    ['channels', '/api/channels'],
    ['users', '/api/users'],
  ];
}

function logFile() {
  return join(cluster.directory, 'postgres.log');
}

function logSize() {
  return readFileSync(logFile()).length;
}

/** One warm-up and one measured request; the plans of the statements both ran (the last of each). */
async function measure(base, headers, [name, path]) {
  const from = logSize();
  let ms = 0;
  for (let round = 0; round < 2; round++) {
    const t = performance.now();
    const res = await fetch(`${base}${path}`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    ms = performance.now() - t;
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const plans = new Map();
  for (const entry of plansIn(readFileSync(logFile()).subarray(from).toString()))
    plans.set(entry.query, entry);
  return { name, path, request_ms: round(ms), statements: [...plans.values()] };
}

/** auto_explain's JSON plans in a slice of the server log. */
function plansIn(text) {
  const out = [];
  const marker = /^.* LOG: {2}duration: ([\d.]+) ms {2}plan:\n/gm;
  const starts = [...text.matchAll(marker)];
  for (const [i, m] of starts.entries()) {
    const body = text.slice(m.index + m[0].length, i + 1 < starts.length ? starts[i + 1].index : undefined);
    const json = body.split(/\n(?=\d{4}-\d\d-\d\d )/)[0];
    let plan;
    try {
      plan = JSON.parse(json);
    } catch {
      continue;
    }
    const query = plan['Query Text'].replace(/\s+/g, ' ').trim();
    if (/^(BEGIN|COMMIT|ROLLBACK|SELECT 1\b)/i.test(query)) continue;
    out.push({ query, ms: Number(m[1]), plan: summary(plan.Plan) });
  }
  return out;
}

/** The scans of a plan: "Seq Scan incidents (100,020 rows)", "Index Scan IDX_x", … */
function summary(node) {
  const parts = [];
  const walk = (n) => {
    if (/Scan/.test(n['Node Type']) && (n['Relation Name'] || n['Index Name'])) {
      const what = n['Index Name'] ?? n['Relation Name'];
      const rows = (n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0);
      const big = BIG.has(n['Relation Name']) && n['Node Type'] === 'Seq Scan';
      parts.push(`${big ? '!' : ''}${n['Node Type']} ${what} (${rows} rows read)`);
    }
    for (const child of n.Plans ?? []) walk(child);
  };
  walk(node);
  return parts.join('; ');
}

function round(v) {
  return Math.round(v * 100) / 100;
}

function print(report) {
  for (const [i, probe] of report.before.entries()) {
    const after = report.after[i];
    console.log(`\n${probe.name}  GET ${probe.path}  request ${probe.request_ms} → ${after.request_ms} ms`);
    for (const statement of after.statements) {
      const before = probe.statements.find((s) => s.query === statement.query);
      console.log(`  ${statement.query.slice(0, 160)}`);
      if (!before) console.log('    (not run before)');
      else if (before.plan !== statement.plan) console.log(`    before ${before.ms} ms: ${before.plan}`);
      const label = before && before.plan !== statement.plan ? 'after ' : '';
      console.log(`    ${label}${statement.ms} ms: ${statement.plan}`);
    }
  }
}
