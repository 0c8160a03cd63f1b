import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, type RestoreResult } from '@monitor/contracts';
import Database from 'better-sqlite3';
import { SCHEMA_VERSION } from '../../src/backup/backup-format';
import { MAX_VALUE_DEPTH } from '../../src/backup/json-table-scanner';
import { DATABASE_FILE } from '../../src/core/database/database-path';
import { itOnSqlite, testBackend } from '../support/test-database';
import { healthWhileWriteLocked, largeDocument, SENSORS } from '../support/large-backup';
import { call, type Headers, setupAdmin } from './support/http';
import { sql } from './support/sensors';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * A restore is written in a worker thread, so the server keeps answering while millions of rows
 * go in; two restores never run at once; a document nested without bound is refused.
 */

jest.setTimeout(60_000);

/**
 * These hold SQLite's write lock from a second connection on the file, read the file directly or
 * inject a failure with a SQLite trigger, and watch the restore's worker thread (SQLite only).
 */
const sqliteOnly = itOnSqlite("SQLite's write lock, its .db file or a SQLite trigger");

async function restore(
  t: TestApp,
  headers: Headers,
  body: string,
): Promise<{ status: number; body: RestoreResult & { error?: string } }> {
  const response = await fetch(`${t.url}/api/restore`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, body: (await response.json()) as RestoreResult & { error?: string } };
}

/**
 * A digest of every row of every table, in a stable order, read through a connection of the
 * test's own: equal dumps mean an unchanged database (digests keep comparing 450,000 rows quick).
 */
function dump(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
      )
      .all() as { name: string }[];
    return Object.fromEntries(
      tables.map(({ name }) => {
        const hash = createHash('sha256');
        for (const row of db.prepare(`SELECT * FROM "${name}" ORDER BY 1, 2`).raw().iterate())
          hash.update(`${JSON.stringify(row)}\n`);
        return [name, hash.digest('hex')];
      }),
    );
  } finally {
    db.close();
  }
}

/** `dump` on either backend: on PostgreSQL through the app's own client (there is no file). */
async function dumpOf(t: TestApp): Promise<Record<string, string>> {
  if (testBackend() === 'sqlite') return dump(path.join(t.dataDir, DATABASE_FILE));
  const tables = await sql<{ name: string }>(
    t,
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const dumped: Record<string, string> = {};
  // The instance's heartbeat renews its row in cluster_instances whatever the requests do.
  for (const { name } of tables.filter((table) => table.name !== 'cluster_instances')) {
    const hash = createHash('sha256');
    for (const row of await sql(t, `SELECT * FROM "${name}" ORDER BY 1, 2`))
      hash.update(`${JSON.stringify(Object.values(row))}\n`);
    dumped[name] = hash.digest('hex');
  }
  return dumped;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise with a flag that turns true once it settles (read synchronously). */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  return { promise, settled: () => done };
}

describe('restore off the event loop', () => {
  let t: TestApp;
  let admin: Headers;
  let file: string;
  let doc: ReturnType<typeof largeDocument>;

  const safetyCopies = () => fs.readdirSync(t.dataDir).filter((name) => name.includes('.before-restore-'));
  const hourlyBuckets = () => {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM rollup_hourly').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false });
    admin = await setupAdmin(t);
    file = path.join(t.dataDir, DATABASE_FILE);
    doc = largeDocument();
  });

  afterAll(async () => {
    await t.close();
  });

  sqliteOnly(
    'answers /healthz while the restore waits for a write lock another connection holds, then writes it',
    async () => {
      // Another writer holds the lock, as the server's own writes do for a moment.
      const holder = new Database(file);
      holder.exec('BEGIN IMMEDIATE');
      const copies = safetyCopies().length;
      const restoring = tracked(restore(t, admin, doc.text));
      try {
        // The safety copy is the last step before the write.
        while (safetyCopies().length === copies && !restoring.settled()) await sleep(5);
        const health = await t.request('/healthz');
        expect(health.status).toBe(200);
        // Answered while the restore still waits: the event loop is free.
        expect(restoring.settled()).toBe(false);
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      // The lock released, the restore goes on and succeeds.
      const res = await restoring.promise;
      expect(res.status).toBe(200);
      expect(res.body.counts).toEqual({ sensors: SENSORS, rollup_hourly: doc.buckets });
      expect(hourlyBuckets()).toBe(doc.buckets);
    },
  );

  sqliteOnly(
    'answers /healthz while a large restore is being written, before the restore answers',
    async () => {
      const restoring = tracked(restore(t, admin, doc.text));
      const { writing, answeredWhileWriting } = await healthWhileWriteLocked(
        file,
        () => restoring.settled(),
        async () => (await t.request('/healthz')).status,
      );
      const res = await restoring.promise;
      expect(res.status).toBe(200);
      expect(res.body.counts).toEqual({ sensors: SENSORS, rollup_hourly: doc.buckets });
      expect(writing).toBeGreaterThan(0);
      expect(answeredWhileWriting).toBeGreaterThan(0);
      expect(t.logs.filter((l) => l.msg === 'restore').at(-1)).toMatchObject({
        counts: { sensors: SENSORS, rollup_hourly: doc.buckets },
      });
    },
  );

  sqliteOnly('changes nothing when the write fails late in the document', async () => {
    // A stored sensor the document does not hold: a restore that went through would delete it.
    await call(
      t,
      'POST',
      '/api/sensors',
      { name: 'kept', type: 'tcp', target: '127.0.0.1:7', interval: 60 },
      admin,
    );
    const injector = new Database(file);
    // The very last bucket of the document fails to insert, after every other row was written.
    injector.exec(
      `CREATE TRIGGER fail_late BEFORE INSERT ON rollup_hourly WHEN NEW.bucket_start = ${doc.lastBucket}
         AND NEW.sensor_id = (SELECT id FROM sensors WHERE name = 'stall-${SENSORS - 1}')
       BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
    try {
      const before = dump(file);
      const res = await restore(t, admin, doc.text);
      expect(res.status).toBe(500);
      expect(typeof res.body.error).toBe('string');
      expect(dump(file)).toEqual(before);
      // The server still writes afterwards.
      const created = await call(
        t,
        'POST',
        '/api/sensors',
        { name: 'after', type: 'tcp', target: '127.0.0.1:8' },
        admin,
      );
      expect(created.status).toBe(201);
    } finally {
      injector.exec('DROP TRIGGER fail_late');
      injector.close();
    }
  });

  it('runs one restore at a time: a second one at once is 409, and the next one after is fine', async () => {
    const results = await Promise.all([restore(t, admin, doc.text), restore(t, admin, doc.text)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const refused = results.find((r) => r.status === 409)!;
    expect(refused.body).toEqual({ error: 'another restore is running' });
    const again = await restore(t, admin, doc.text);
    expect(again.status).toBe(200);
    expect(again.body.counts).toEqual({ sensors: SENSORS, rollup_hourly: doc.buckets });
  });

  it('refuses a document nested deeper than the limit with 400, changing nothing', async () => {
    const deep = 100_000;
    const head = {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      schema_version: SCHEMA_VERSION,
    };
    const before = await dumpOf(t);
    for (const text of [
      `${JSON.stringify(head).slice(0, -1)},"settings":{"nested":${'['.repeat(deep)}${']'.repeat(deep)}}}`,
      `${JSON.stringify(head).slice(0, -1)},"sensors":[{"name":"x","options":${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}}]}`,
    ]) {
      const res = await restore(t, admin, text);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(`nested deeper than ${MAX_VALUE_DEPTH} levels`);
    }
    expect(await dumpOf(t)).toEqual(before);
  });
});

describe('probe results while a restore writes', () => {
  let t: TestApp;
  let admin: Headers;
  let target: net.Server;

  beforeAll(async () => {
    target = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    t = await startTestApp();
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => target.close(resolve));
  });

  sqliteOnly('wait in memory while the restore holds the write lock and are written afterwards', async () => {
    const port = (target.address() as net.AddressInfo).port;
    const sensor = await call<{ id: number }>(
      t,
      'POST',
      '/api/sensors',
      { name: 'every second', type: 'tcp', target: `127.0.0.1:${port}`, interval: 1 },
      admin,
    );
    expect(sensor.status).toBe(201);
    const file = path.join(t.dataDir, DATABASE_FILE);
    const head = {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      schema_version: SCHEMA_VERSION,
    };
    // Another writer holds the lock longer than results wait between two writes (5 s).
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    const heldFrom = Date.now();
    const restoring = tracked(restore(t, admin, JSON.stringify({ ...head, settings: {} })));
    let answered = 0;
    try {
      while (Date.now() - heldFrom < 6500) {
        const health = await t.request('/healthz');
        if (health.status === 200 && !restoring.settled()) answered++;
        await sleep(100);
      }
      expect(restoring.settled()).toBe(false);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    const heldUntil = Date.now();
    expect((await restoring.promise).status).toBe(200);
    expect(answered).toBeGreaterThan(30);
    // Nothing failed for want of the lock, and what was probed meanwhile is stored now.
    expect(t.logs.filter((l) => l.msg === 'writing probe results failed')).toEqual([]);
    const reader = new Database(file, { readonly: true });
    try {
      const { n } = reader
        .prepare('SELECT count(*) AS n FROM probe_results WHERE sensor_id = ? AND ts BETWEEN ? AND ?')
        .get(sensor.body.id, heldFrom, heldUntil) as { n: number };
      expect(n).toBeGreaterThanOrEqual(4);
    } finally {
      reader.close();
    }
  });
});
