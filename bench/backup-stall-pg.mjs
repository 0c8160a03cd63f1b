// The longest event-loop stall while a large backup is restored into PostgreSQL (where the restore
// runs on the event loop, awaited statement by statement, instead of in a worker thread): 1,000
// sensors with 89 days of hourly buckets (2.14 million, as bench/backup-stall.mjs), exported from
// SQLite by the backup code, then restored twice into a throw-away cluster (into an empty database,
// then over itself: the second one writes the safety document first). A 1 ms timer in the same
// process records the widest gap between two of its turns (the stall requests and probes would see).
// Not in npm run bench (it needs the cluster). BENCH_DAYS=30 with less history.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fillRollups } from './support/rollups.mjs';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The server's sources use decorators: compile them as jest does (before pg-harness registers its own).
Module._extensions['.ts'] = (module, filename) => {
  const { code } = require('@swc/core').transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
const { startPostgresCluster } = await import('./support/pg-harness.mjs');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@monitor\/(domain|contracts|probes|notifiers)(\/.*)?$/.exec(request);
  return resolve.call(this, alias ? join(root, 'libs', alias[1], 'src', alias[2] || '') : request, ...rest);
};
const src = (file) => require(join(root, 'apps/monitor/src', file));
const { openStorage } = src('core/database/copy-database.ts');
const { openReadSnapshot } = src('core/database/own-connection.ts');
const { backupDocument } = src('backup/backup-document.ts');
const { JsonTableScanner } = src('backup/json-table-scanner.ts');
const { RestorePlan } = src('backup/restore-plan.ts');
const { planData } = src('backup/restore-job.ts');
const { restoreIntoPostgres } = src('backup/restore-postgres.ts');
const { insertSensor } = src('sensors/sensor-rows.sql.ts');
const Database = require('better-sqlite3');

const SENSORS = 1000;
const DAYS = Number(process.env.BENCH_DAYS ?? 89);
const HOUR = 3_600_000;

/** The widest gap between turns of a 1 ms timer while `work` runs. */
async function stallDuring(work) {
  let last = performance.now();
  let widest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    widest = Math.max(widest, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  try {
    const result = await work();
    return { result, ms: Math.round(performance.now() - started), max_stall_ms: Math.round(widest) };
  } finally {
    clearInterval(timer);
  }
}

async function exportDocument(client, now) {
  const snapshot = await openReadSnapshot(client);
  const pieces = [];
  try {
    for await (const piece of backupDocument(snapshot.tx, {
      scope: 'history',
      days: 'all',
      now,
      apiKey: null,
      counts: {},
    }))
      pieces.push(piece);
  } finally {
    await snapshot.close();
  }
  return pieces.join('');
}

function checked(text, dir) {
  const spool = join(dir, 'spool.json');
  writeFileSync(spool, text);
  const plan = new RestorePlan({ channel: () => undefined, sensor: () => undefined });
  const scanner = new JsonTableScanner(plan);
  scanner.feed(Buffer.from(text));
  scanner.end();
  plan.finish();
  return { spool, plan: planData(plan) };
}

export async function run() {
  const work = mkdtempSync(join(tmpdir(), 'monitor-bench-pg-restore-'));
  const cluster = await startPostgresCluster();
  try {
    const now = Date.now();
    const sqliteDir = join(work, 'sqlite');
    mkdirSync(sqliteDir);
    const sqlite = await openStorage({ dataDir: sqliteDir });
    const ids = await sqlite.client.transaction(async (tx) => {
      const created = [];
      for (let i = 0; i < SENSORS; i++)
        created.push(
          await insertSensor(
            tx,
            {
              name: `bench-${i}`,
              type: 'http',
              target: `http://127.0.0.1:9/s/${i}`,
              interval: 60,
              retries: 1,
              reminder_every: 0,
              group: '',
              tags: [],
              enabled: true,
              options: { timeout: 10 },
              sort_order: i,
              sample: false,
            },
            null,
            now,
          ),
        );
      // A restore needs an administrator in the document.
      await tx.run(
        `INSERT INTO users (username, password_hash, role, created_at, updated_at) VALUES ('admin', ?, 'admin', ?, ?)`,
        [`$2b$10$${'a'.repeat(53)}`, now, now],
      );
      return created;
    });
    await sqlite.close();
    const db = new Database(join(sqliteDir, 'monitor.db'));
    fillRollups(db, ids, DAYS, Math.floor(now / HOUR) * HOUR);
    db.close();
    const reopened = await openStorage({ dataDir: sqliteDir });
    const text = await exportDocument(reopened.client, now);
    await reopened.close();
    const { spool, plan } = checked(text, work);
    const buckets = JSON.parse(text).rollup_hourly.reduce((n, block) => n + block.n, 0);
    console.log(
      `backup-stall-pg: ${SENSORS} sensors, about ${buckets} hourly buckets, document ${(text.length / 1048576).toFixed(1)} MiB`,
    );

    const pg = await openStorage({ url: await cluster.createDatabase() });
    const restore = () =>
      restoreIntoPostgres(
        pg.client,
        { spool, plan, now, apiKeyRows: null },
        {
          dataDir: work,
          apiKey: null,
          openSnapshot: () => openReadSnapshot(pg.client),
        },
      );
    const first = await stallDuring(restore);
    console.log(
      `backup-stall-pg: restore into an empty database in ${first.ms} ms, longest stall ${first.max_stall_ms} ms`,
    );
    const second = await stallDuring(restore);
    console.log(
      `backup-stall-pg: restore over it (safety document first) in ${second.ms} ms, longest stall ${second.max_stall_ms} ms`,
    );
    await pg.close();
    const strip = ({ result, ...figures }) => ({ ...figures, counts: result.outcome.counts });
    return {
      sensors: SENSORS,
      hourly_buckets: buckets,
      document_mib: Math.round((text.length / 1048576) * 10) / 10,
      restore_empty: strip(first),
      restore_over: strip(second),
    };
  } finally {
    await cluster.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  run().then(
    (result) => console.log(JSON.stringify(result)),
    (error) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
