import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type {
  BackupAccount,
  BackupChannel,
  BackupDocument,
  BackupIncident,
  BackupRollupBlock,
  BackupSensor,
  RestoreResult,
} from '@monitor/contracts';
import { fakeService, type FakeService } from '@monitor/notifiers/testing/fake-service';
import Database from 'better-sqlite3';
import { generate } from 'otplib';
import { DataSource } from 'typeorm';
import { DATABASE_FILE } from '../../src/core/database/database-path';
import { sqliteHandle } from '../../src/core/database/sqlite-handle';
import { SchedulerService } from '../../src/scheduler/scheduler.service';
import { SensorRuntimeService } from '../../src/scheduler/sensor-runtime.service';
import { MutableClock } from './support/clock';
import {
  accountWithRole,
  ADMIN,
  apiKeyHeaders,
  call,
  Headers,
  sessionCookieOf,
  setupAdmin,
  signIn,
} from './support/http';
import { itOnSqlite, testBackend } from '../support/test-database';
import { createSensor, type HttpTarget, record, type Sensor, sql, startHttpTarget } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-11-21T12:00:00Z');
const MiB = 1024 * 1024;

const HMAC_SECRET = 'hmac-secret-for-the-backup-test';
const BOT_TOKEN = '123456:bot-token-for-the-backup-test';
const COMMUNITY = 'community-for-the-backup-test';
const TILE_URL = 'https://tiles.example.test/{z}/{x}/{y}.png';
const OPERATOR = { username: 'olga', password: 'operator password 1' };

interface Download {
  status: number;
  headers: globalThis.Headers;
  text: string;
  doc: BackupDocument;
}

/** Fetches the backup directly: its body is full of credential hashes that TestApp.bodies must not record. */
async function download(t: TestApp, headers: Headers, query = ''): Promise<Download> {
  const response = await fetch(`${t.url}/api/backup${query}`, { headers });
  const text = await response.text();
  let doc = undefined as unknown as BackupDocument;
  if (response.status === 200) doc = JSON.parse(text) as BackupDocument;
  return { status: response.status, headers: response.headers, text, doc };
}

async function restore(
  t: TestApp,
  headers: Headers,
  body: string | Buffer,
  contentType = 'application/json',
): Promise<{ status: number; body: RestoreResult & { error?: string }; cookie: string | null }> {
  const response = await fetch(`${t.url}/api/restore`, {
    method: 'POST',
    headers: { ...headers, 'content-type': contentType },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as RestoreResult & { error?: string },
    // Restored accounts lose their sessions; the restoring browser gets this fresh one.
    cookie: sessionCookieOf(response),
  };
}

/** Every row of every table, in a stable order: equal dumps mean an unchanged database. */
async function dump(t: TestApp): Promise<Record<string, unknown[]>> {
  const tables = await sql<{ name: string }>(
    t,
    testBackend() === 'sqlite'
      ? `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`
      : `SELECT table_name AS name FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const dumped: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    // An instance's heartbeat moves on by itself (on a slow run, during the test); nothing else may.
    const columns = name === 'cluster_instances' ? 'name, token, version, started_at, stopped_at' : '*';
    dumped[name] = (await sql(t, `SELECT ${columns} FROM "${name}" ORDER BY 1, 2`)).map((row) =>
      Object.values(row),
    );
  }
  return dumped;
}

const totpCode = (secret: string, at: number) => generate({ secret, epoch: Math.floor(at / 1000) });

/** The safety copy is a SQLite file beside the database and written with SQLite's backup API. */
const sqliteOnly = itOnSqlite('the safety copy is a copy of the SQLite file');

/**
 * Installation A: an administrator, an operator with a second factor, the API key, two channels
 * whose secrets point at a local fake service, an http and an snmp sensor, a site, map settings,
 * incidents and rollups of various ages.
 */
async function buildInstallation(t: TestApp, clock: MutableClock, fake: FakeService, target: HttpTarget) {
  const admin = await setupAdmin(t);
  const operator = await accountWithRole(t, admin, OPERATOR.username, 'operator', OPERATOR.password);
  const started = await call<{ secret: string }>(
    t,
    'POST',
    '/api/me/totp/start',
    undefined,
    operator.headers,
  );
  const totpSecret = started.body.secret;
  const confirmed = await call<{ recovery_codes: string[] }>(
    t,
    'POST',
    '/api/me/totp/confirm',
    { code: await totpCode(totpSecret, clock.now()) },
    operator.headers,
  );
  expect(confirmed.status).toBe(200);
  const apiKey = (await apiKeyHeaders(t, admin))['x-api-key'];
  expect((await call(t, 'PUT', '/api/map', { tile_url: TILE_URL, attribution: 'tiles' }, admin)).status).toBe(
    200,
  );
  expect(
    (await call(t, 'POST', '/api/sites', { name: 'Berlin', kind: 'local', lat: 52.5, lon: 13.4 }, admin))
      .status,
  ).toBe(201);
  const hook = await call<{ id: number }>(
    t,
    'POST',
    '/api/channels',
    { name: 'ops hook', type: 'webhook', config: { url: `${fake.base}/hook`, hmac_secret: HMAC_SECRET } },
    admin,
  );
  const bot = await call<{ id: number }>(
    t,
    'POST',
    '/api/channels',
    {
      name: 'ops bot',
      type: 'bot_messenger',
      config: { bot_token: BOT_TOKEN, chat_id: '42', api_url: fake.base },
    },
    admin,
  );
  expect([hook.status, bot.status]).toEqual([201, 201]);
  const web = await createSensor(t, admin, {
    name: 'web',
    type: 'http',
    target: target.url,
    interval: 1,
    site: 'Berlin',
    tags: ['prod'],
    channels: [hook.body.id, bot.body.id],
  });
  const snmp = await createSensor(t, admin, {
    name: 'switch',
    type: 'snmp',
    target: '127.0.0.1',
    retries: 100,
    parent_id: web.id,
    options: { community: COMMUNITY, oid: '1.3.6.1.2.1.1.3.0', port: 1 },
  });
  // History written as the rollup pass and the state machine would have.
  const hourly = (sensorId: number, bucket: number, up: number, sum: number, min: number, max: number) =>
    sql(
      t,
      'INSERT INTO rollup_hourly (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max) VALUES (?, ?, 60, ?, ?, ?, ?)',
      [sensorId, bucket, up, sum, min, max],
    );
  const hourNow = Math.floor(NOW / HOUR) * HOUR;
  for (let h = 1; h <= 48; h++)
    await hourly(web.id, hourNow - h * HOUR, 60 - (h % 5 === 0 ? 2 : 0), 1234.56 + h, 5.25, 98.5);
  await hourly(web.id, hourNow - 20 * DAY, 60, 600.5, 9, 11);
  const dayNow = Math.floor(NOW / DAY) * DAY;
  for (const d of [1, 2, 3, 40])
    await sql(
      t,
      'INSERT INTO rollup_daily (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max) VALUES (?, ?, 1440, 1440, 1440.25, 1, 2)',
      [web.id, dayNow - d * DAY],
    );
  const incident = (...values: unknown[]) =>
    sql(
      t,
      `INSERT INTO incidents (sensor_id, started_at, resolved_at, cause, acknowledged, acknowledged_by, note)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
      values,
    );
  await incident(web.id, NOW - 2 * DAY, NOW - 2 * DAY + HOUR, 'HTTP 503', true, 'admin', 'looked at it');
  await incident(web.id, NOW - 20 * DAY, NOW - 20 * DAY + HOUR, 'HTTP 502', false, null, '');
  await incident(snmp.id, NOW - HOUR, null, 'timeout', false, null, '');
  return { admin, operator, totpSecret, recoveryCodes: confirmed.body.recovery_codes, apiKey, web, snmp };
}

describe('backup and restore', () => {
  let a: TestApp;
  let clockA: MutableClock;
  let fake: FakeService;
  let target: HttpTarget;
  let installation: Awaited<ReturnType<typeof buildInstallation>>;

  beforeAll(async () => {
    clockA = new MutableClock(NOW);
    fake = await fakeService(() => ({ status: 200, body: '{"ok":true}' }));
    target = await startHttpTarget();
    a = await startTestApp({ startScheduler: false, clock: clockA });
    installation = await buildInstallation(a, clockA, fake, target);
  });

  afterAll(async () => {
    await a.close();
    await fake.close();
    await target.close();
  });

  describe('GET /api/backup', () => {
    it('answers a download named from a constant and the date, never from the request', async () => {
      for (const query of ['', '?scope=history&days=7', '?scope=config&days=all']) {
        const res = await download(a, { ...installation.admin, 'x-filename': 'evil.sh' }, query);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json');
        expect(res.headers.get('content-disposition')).toBe(
          'attachment; filename="monitor-backup-2026-11-21.json"',
        );
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
    });

    it('is for administrators only', async () => {
      expect((await download(a, installation.operator.headers)).status).toBe(403);
      expect((await download(a, {})).status).toBe(401);
      expect((await download(a, { 'x-api-key': installation.apiKey })).status).toBe(200);
    });

    it.each([
      ['?scope=everything', /scope/],
      ['?scope=history&days=8', /days/],
      ['?days=14', /days/],
      ['?scope=config&extra=1', /extra/],
    ])('refuses %s with 400 naming the parameter', async (query, error) => {
      const res = await download(a, installation.admin, query);
      expect(res.status).toBe(400);
      expect((JSON.parse(res.text) as { error: string }).error).toMatch(error);
    });

    it('writes the header and every secret in clear text (scope=config)', async () => {
      const { doc } = await download(a, installation.admin);
      expect(doc).toMatchObject({
        format: 'monitor-backup',
        format_version: 1,
        schema_version: expect.any(Number),
        created_at: new Date(NOW).toISOString(),
        scope: 'config',
      });
      expect(doc.days).toBeUndefined();
      expect(doc.incidents).toBeUndefined();
      expect(doc.rollup_hourly).toBeUndefined();
      expect(doc.api_key).toBe(installation.apiKey);
      expect(doc.settings?.map).toMatchObject({ tile_url: TILE_URL });
      const accounts = doc.accounts as BackupAccount[];
      expect(accounts.map((u) => u.username)).toEqual(['admin', OPERATOR.username]);
      for (const account of accounts) expect(account.password_hash).toMatch(/^\$2[aby]\$12\$/);
      const operator = accounts[1];
      expect(operator).toMatchObject({
        role: 'operator',
        totp_enabled: true,
        totp_secret: installation.totpSecret,
      });
      expect(operator.recovery_codes).toHaveLength(8);
      for (const code of operator.recovery_codes) expect(code.code_hash).toMatch(/^[0-9a-f]{64}$/);
      const channels = doc.channels as BackupChannel[];
      expect(channels.find((c) => c.name === 'ops hook')?.config).toEqual({
        url: `${fake.base}/hook`,
        hmac_secret: HMAC_SECRET,
      });
      expect(channels.find((c) => c.name === 'ops bot')?.config).toMatchObject({ bot_token: BOT_TOKEN });
      const sensors = doc.sensors as BackupSensor[];
      expect(sensors.find((s) => s.name === 'web')).toMatchObject({
        site: 'Berlin',
        channels: ['ops hook', 'ops bot'],
        tags: ['prod'],
        interval: 1,
      });
      expect(sensors.find((s) => s.name === 'switch')).toMatchObject({
        parent: 'web',
        options: { community: COMMUNITY },
      });
      expect(doc.sites).toEqual([{ name: 'Berlin', kind: 'local', lat: 52.5, lon: 13.4, sample: false }]);
    });

    it('with scope=history adds incidents and rollups of the last days only', async () => {
      const week = (await download(a, installation.admin, '?scope=history&days=7')).doc;
      expect(week).toMatchObject({ scope: 'history', days: 7 });
      const causes = (week.incidents as BackupIncident[]).map((i) => i.cause).sort();
      expect(causes).toEqual(['HTTP 503', 'timeout']);
      const buckets = (blocks: BackupRollupBlock[] | undefined) =>
        (blocks ?? []).reduce(
          (n, b) => n + b.n - (Array.isArray(b.count) ? b.count.filter((c) => c === 0).length : 0),
          0,
        );
      expect(buckets(week.rollup_hourly)).toBe(48);
      expect(buckets(week.rollup_daily)).toBe(3);
      // Consecutive hours form one block; a column that never changes is one value.
      expect(week.rollup_hourly).toHaveLength(1);
      expect(week.rollup_hourly?.[0]).toMatchObject({
        sensor: 'web',
        start: new Date(Math.floor(NOW / HOUR) * HOUR - 48 * HOUR).toISOString(),
        step: 3600,
        n: 48,
        count: 60,
        latency_min: 5.25,
      });
      const all = (await download(a, installation.admin, '?scope=history&days=all')).doc;
      expect(all.days).toBe('all');
      expect(all.incidents).toHaveLength(3);
      expect(buckets(all.rollup_hourly)).toBe(49);
      expect(buckets(all.rollup_daily)).toBe(4);
      const month = (await download(a, installation.admin, '?scope=history')).doc;
      expect(month.days).toBe(30);
      expect(month.incidents).toHaveLength(3);
      expect(buckets(month.rollup_daily)).toBe(3);
    });
  });

  describe('round trip into a fresh installation', () => {
    let b: TestApp;
    let clockB: MutableClock;
    let result: { status: number; body: RestoreResult & { error?: string } };
    let bAdmin: Headers;

    beforeAll(async () => {
      // Everything asked of A is asked before B starts: a second app's passport strategies replace the first's.
      const { text } = await download(a, installation.admin, '?scope=history&days=all');
      // B's clock is an hour on, past the time step A's operator last used.
      clockB = new MutableClock(NOW + HOUR);
      b = await startTestApp({ startScheduler: false, clock: clockB });
      bAdmin = await setupAdmin(b, { username: 'b-admin', password: 'b admin password' });
      fake.received.splice(0);
      result = await restore(b, bAdmin, text);
    });

    afterAll(async () => {
      await b.close();
    });

    it('answers the counts, the safety copy and the token epoch notice', () => {
      expect(result.status).toBe(200);
      expect(result.body).toEqual({
        counts: {
          settings: expect.any(Number),
          api_key: 1,
          sites: 1,
          channels: 2,
          sensors: 2,
          status_pages: 0,
          accounts: 2,
          incidents: 3,
          rollup_hourly: 49,
          rollup_daily: 4,
        },
        // SQLite copies the database file; PostgreSQL writes a backup document beside the data.
        safety_copy:
          testBackend() === 'sqlite'
            ? 'monitor.db.before-restore-20261121T130000000Z'
            : 'monitor-before-restore-2026-11-21T13-00-00Z.json',
        token_epoch_notice: true,
      });
      expect(fs.existsSync(path.join(b.dataDir, result.body.safety_copy))).toBe(true);
    });

    it("replaces B's accounts: A's passwords sign in, the operator still needs the second factor", async () => {
      expect((await call(b, 'GET', '/api/settings', undefined, bAdmin)).status).toBe(401);
      const admin = await signIn(b, ADMIN.username, ADMIN.password);
      expect((await call(b, 'GET', '/api/users', undefined, admin)).status).toBe(200);
      const step = await call<{ totp_required: boolean; challenge: string }>(
        b,
        'POST',
        '/api/login',
        OPERATOR,
      );
      expect(step.body.totp_required).toBe(true);
      const second = await call(b, 'POST', '/api/login/totp', {
        challenge: step.body.challenge,
        code: await totpCode(installation.totpSecret, clockB.now()),
      });
      expect(second.status).toBe(200);
    });

    it("accepts A's API key and shows it to administrators", async () => {
      const res = await call<{ api_key: string }>(b, 'GET', '/api/settings', undefined, {
        'x-api-key': installation.apiKey,
      });
      expect(res.status).toBe(200);
      expect(res.body.api_key).toBe(installation.apiKey);
    });

    it("lists A's sensors with masked secrets, linked to their site, parent and channels", async () => {
      const key = { 'x-api-key': installation.apiKey };
      const sensors = (await call<Sensor[]>(b, 'GET', '/api/sensors', undefined, key)).body;
      expect(sensors.map((s) => s.name).sort()).toEqual(['switch', 'web']);
      const web = sensors.find((s) => s.name === 'web') as Sensor & { channels: number[] };
      const snmp = sensors.find((s) => s.name === 'switch') as Sensor & { parent_id: number };
      expect(web.site).toBe('Berlin');
      expect(web.channels).toHaveLength(2);
      expect(snmp.parent_id).toBe(web.id);
      expect(snmp.options.community).toBe('__stored__');
      expect(JSON.stringify(sensors)).not.toContain(COMMUNITY);
      // Every restored sensor has its runtime entry, and the scheduler takes it from there.
      for (const sensor of sensors) expect(b.app.get(SensorRuntimeService).get(sensor.id)).toBeDefined();
      // Its open incident came along, so the rebuilt runtime knows it is down (as after a restart).
      expect(snmp.status).toBe('down');
    });

    it('delivers a channel test with the stored secrets', async () => {
      const key = { 'x-api-key': installation.apiKey };
      const channels = (await call<{ id: number; name: string }[]>(b, 'GET', '/api/channels', undefined, key))
        .body;
      for (const name of ['ops hook', 'ops bot']) {
        const id = channels.find((c) => c.name === name)?.id;
        expect((await call(b, 'POST', `/api/channels/${id}/test`, undefined, key)).status).toBe(200);
      }
      const hook = fake.received.find((r) => r.url === '/hook');
      expect(hook?.headers['x-monitor-signature']).toBe(
        `sha256=${createHmac('sha256', HMAC_SECRET).update(hook!.body).digest('hex')}`,
      );
      expect(fake.received.some((r) => r.url === `/bot${BOT_TOKEN}/sendMessage`)).toBe(true);
    });

    it('carries the incidents and rollups over to the restored sensors', async () => {
      const key = { 'x-api-key': installation.apiKey };
      const incidents = (
        await call<{ cause: string; sensor_name: string; note: string }[]>(
          b,
          'GET',
          '/api/incidents',
          undefined,
          key,
        )
      ).body;
      expect(incidents.map((i) => `${i.sensor_name}: ${i.cause}`).sort()).toEqual([
        'switch: timeout',
        'web: HTTP 502',
        'web: HTTP 503',
      ]);
      const count = async (query: string, on = b) => (await sql<{ n: number }>(on, query))[0].n;
      expect(await count('SELECT count(*) AS n FROM rollup_hourly')).toBe(49);
      expect(await count('SELECT sum(up) AS n FROM rollup_hourly')).toBe(
        await count('SELECT sum(up) AS n FROM rollup_hourly', a),
      );
      expect(await count('SELECT count(*) AS n FROM rollup_daily')).toBe(4);
      const web = (await call<Sensor[]>(b, 'GET', '/api/sensors', undefined, key)).body.find(
        (s) => s.name === 'web',
      );
      const uptime = await call<{ uptime: { count: number } }>(
        b,
        'GET',
        `/api/sensors/${web!.id}/uptime?range=30d`,
        undefined,
        key,
      );
      expect(uptime.body.uptime.count).toBeGreaterThan(0);
    });

    it('keeps the map settings', async () => {
      const key = { 'x-api-key': installation.apiKey };
      const sites = (await call<{ map: { tile_url: string } }>(b, 'GET', '/api/sites', undefined, key)).body;
      expect(sites.map.tile_url).toBe(TILE_URL);
    });

    it('schedules the restored sensors once the scheduler runs', async () => {
      const before = target.hits;
      b.app.get(SchedulerService).start();
      const until = Date.now() + 10_000;
      while (target.hits === before && Date.now() < until) {
        // B runs on a clock the test moves: probes fall due as it advances.
        clockB.advance(500);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(target.hits).toBeGreaterThan(before);
    });

    it('writes no backup content to any log line', async () => {
      const logged = JSON.stringify([...a.logs, ...b.logs]);
      const stored = await sql<{ password_hash: string }>(a, 'SELECT password_hash FROM users');
      for (const secret of [
        HMAC_SECRET,
        BOT_TOKEN,
        COMMUNITY,
        installation.apiKey,
        installation.totpSecret,
        TILE_URL,
        ...stored.map((u) => u.password_hash),
        '$2b$',
      ])
        expect(logged).not.toContain(secret);
      const lines = b.logs.filter((l) => l.msg === 'restore');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ counts: result.body.counts, safety_copy: result.body.safety_copy });
      expect(a.logs.filter((l) => l.msg === 'backup').length).toBeGreaterThan(0);
    });
  });
});

describe('restore refusals and the safety copy', () => {
  let t: TestApp;
  let admin: Headers;
  let clock: MutableClock;
  let text: string;

  const files = () => fs.readdirSync(t.dataDir).sort();

  /** The database file's bytes with everything checkpointed into it (SQLite: PostgreSQL has no file here). */
  const databaseBytes = () => {
    if (testBackend() !== 'sqlite') return Buffer.alloc(0);
    sqliteHandle(t.app.get(DataSource)).pragma('wal_checkpoint(TRUNCATE)');
    return fs.readFileSync(path.join(t.dataDir, DATABASE_FILE));
  };

  /** Runs a refused restore and checks nothing changed: no row, no file, not one byte. */
  async function refused(body: string | Buffer, status: number, error: RegExp, contentType?: string) {
    const before = await dump(t);
    const bytes = databaseBytes();
    const listing = files();
    const res = await restore(t, admin, body, contentType);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatch(error);
    expect(await dump(t)).toEqual(before);
    expect(databaseBytes().equals(bytes)).toBe(true);
    expect(files()).toEqual(listing);
  }

  beforeAll(async () => {
    clock = new MutableClock(NOW);
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    await call(t, 'POST', '/api/sites', { name: 'Paris', kind: 'external' }, admin);
    const sensor = await createSensor(t, admin, {
      name: 'db',
      type: 'tcp',
      target: '127.0.0.1:5432',
      site: 'Paris',
    });
    await sql(
      t,
      'INSERT INTO rollup_daily (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max) VALUES (?, ?, 10, 9, 90, 5, 15)',
      [sensor.id, Math.floor(NOW / DAY) * DAY - DAY],
    );
    text = (await download(t, admin, '?scope=history&days=all')).text;
    // Something the document does not hold, so a restore would change the database.
    await createSensor(t, admin, { name: 'cache', type: 'tcp', target: '127.0.0.1:6379' });
  });

  afterAll(async () => {
    await t.close();
  });

  const edited = (change: (d: BackupDocument & Record<string, unknown>) => void) => {
    const copy = JSON.parse(text) as BackupDocument & Record<string, unknown>;
    change(copy);
    return JSON.stringify(copy);
  };

  it('refuses another format', async () => {
    await refused(
      edited((d) => void (d.format = 'other-backup' as never)),
      400,
      /not a backup of this service/,
    );
    await refused('{"sites": []}', 400, /must begin with format/);
  });

  it('refuses a newer format_version or schema_version', async () => {
    await refused(
      edited((d) => void (d.format_version = 2)),
      400,
      /format_version 2 is newer/,
    );
    await refused(
      edited((d) => void (d.schema_version = 999)),
      400,
      /schema_version 999 is newer/,
    );
  });

  it('refuses malformed JSON', async () => {
    await refused(text.slice(0, text.length / 2), 400, /malformed JSON|not valid JSON|end of the document/);
    await refused(text.replace('"sensors":[', '"sensors":[,'), 400, /sensors/);
    await refused(`${text} {}`, 400, /after the end of the document/);
  });

  it('refuses a bad row in the last table, naming it, and writes nothing of the tables before it', async () => {
    await refused(
      edited((d) => {
        d.sites!.push({ name: 'Madrid', kind: 'local', lat: null, lon: null, sample: false });
        d.rollup_daily![0].up = 11;
      }),
      400,
      /^rollup_daily row 0: up\[0\]/,
    );
  });

  it('refuses unknown tables and fields, references to what does not exist, and a lockout', async () => {
    await refused(
      edited((d) => void (d.widgets = [])),
      400,
      /unknown key "widgets"/,
    );
    await refused(
      edited((d) => void Object.assign(d.sensors![0], { colour: 'red' })),
      400,
      /^sensors row 0 \("db"\): unknown field "colour"/,
    );
    await refused(
      edited((d) => void (d.sensors![0].site = 'Rome')),
      400,
      /^sensors row 0 \("db"\): site "Rome" is not in the document's sites/,
    );
    await refused(
      edited((d) => void (d.sensors![0].options = { community: '__stored__' })),
      400,
      /^sensors row 0 \("db"\)/,
    );
    await refused(
      edited((d) => void (d.accounts![0].role = 'viewer')),
      400,
      /no enabled administrator/,
    );
  });

  it('refuses a body over 64 MiB with 413, declared or streamed', async () => {
    const before = await dump(t);
    // Declared: refused before reading.
    const declared = await rawPost(t, admin, { 'content-length': String(64 * MiB + 1) }, (req) =>
      req.write('{'),
    );
    expect(declared.status).toBe(413);
    // Streamed: a generated document that only ends past the limit.
    const streamed = await rawPost(t, admin, { 'transfer-encoding': 'chunked' }, (req, answered) => {
      const head = `{"format":"monitor-backup","format_version":1,"schema_version":1,"rollup_hourly":[`;
      req.write(head);
      let start = Date.parse('2020-01-01T00:00:00Z');
      const count = Array(1000).fill(60).join(',');
      let sent = 0;
      const writeMore = () => {
        while (!answered() && sent < 70 * MiB) {
          let chunk = '';
          while (chunk.length < MiB) {
            chunk += `${sent + chunk.length > 0 ? ',' : ''}{"sensor":"db","start":"${new Date(start).toISOString()}","step":3600,"n":1000,"count":[${count}],"up":60,"latency_sum":1,"latency_min":1,"latency_max":1}`;
            start += 1000 * HOUR;
          }
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', writeMore);
        }
      };
      writeMore();
    });
    expect(streamed.status).toBe(413);
    expect(streamed.body).toMatch(/64 MiB/);
    expect(await dump(t)).toEqual(before);
  });

  it('refuses another content type with 415', async () => {
    await refused(text, 415, /application\/json/, 'text/plain');
  });

  it('is for administrators only', async () => {
    const operator = await accountWithRole(t, admin, 'otto', 'operator');
    const before = await dump(t);
    const res = await restore(t, operator.headers, text);
    expect(res.status).toBe(403);
    expect(await dump(t)).toEqual(before);
  });

  sqliteOnly('refuses the restore when the safety copy cannot be written, and changes nothing', async () => {
    const handle = sqliteHandle(t.app.get(DataSource));
    const spy = jest
      .spyOn(handle, 'backup')
      .mockRejectedValueOnce(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    try {
      await refused(text, 500, /safety copy .* could not be written .*ENOSPC.*nothing was changed/);
    } finally {
      spy.mockRestore();
    }
  });

  sqliteOnly(
    'makes a safety copy beside the database, then replaces the named tables keeping matched ids',
    async () => {
      const db = sqliteHandle(t.app.get(DataSource));
      const [kept] = db.prepare(`SELECT id FROM sensors WHERE name = 'db'`).raw().all() as [number][];
      db.prepare(`INSERT INTO probe_results (sensor_id, ts, success, message) VALUES (?, ?, 1, 'ok')`).run(
        kept[0],
        NOW,
      );
      const before = await dump(t);
      const events = record(t, 'sensor');
      const res = await restore(t, admin, text);
      events.stop();
      expect(res.status).toBe(200);
      admin = { cookie: res.cookie as string };
      expect(res.body.counts).toMatchObject({ sensors: 1, sites: 1, rollup_daily: 1, incidents: 0 });
      expect(res.body.safety_copy.startsWith(`${DATABASE_FILE}.before-restore-`)).toBe(true);
      // The copy holds exactly the rows from before the restore.
      const copy = new Database(path.join(t.dataDir, res.body.safety_copy), { readonly: true });
      try {
        const copied = Object.fromEntries(
          Object.keys(before).map((name) => [
            name,
            copy.prepare(`SELECT * FROM "${name}" ORDER BY 1, 2`).raw().all(),
          ]),
        );
        expect(copied).toEqual(before);
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        copy.close();
      }
      // 'db' kept its id and its raw results; 'cache', not in the document, is gone and announced.
      const sensors = (await call<Sensor[]>(t, 'GET', '/api/sensors', undefined, admin)).body;
      expect(sensors.map((s) => [s.name, s.id])).toEqual([['db', kept[0]]]);
      expect(db.prepare('SELECT count(*) FROM probe_results WHERE sensor_id = ?').raw().get(kept[0])).toEqual(
        [1],
      );
      expect(events.events).toEqual(
        expect.arrayContaining([
          { id: kept[0], action: 'updated' },
          { id: expect.any(Number), action: 'deleted' },
        ]),
      );
      // The spooled upload is gone.
      expect(files().filter((f) => f.includes('restore-upload'))).toEqual([]);
    },
  );
});

describe('restore beside the configuration file', () => {
  it('leaves sensors the file declares as they are', async () => {
    // One app at a time: the passport strategies of a second app in the process replace the first's.
    const source = await startTestApp({ startScheduler: false });
    let text: string;
    try {
      const sourceAdmin = await setupAdmin(source);
      await createSensor(source, sourceAdmin, { name: 'from-api', type: 'tcp', target: '127.0.0.1:2' });
      text = (await download(source, sourceAdmin)).text;
    } finally {
      await source.close();
    }
    const target = await startTestApp({
      startScheduler: false,
      file: { sensors: [{ name: 'from-file', type: 'tcp', target: '127.0.0.1:1' }] },
    });
    try {
      const res = await restore(target, await setupAdmin(target), text);
      expect(res.status).toBe(200);
      const rows = await sql(target, 'SELECT name, managed_by FROM sensors ORDER BY name');
      expect(rows).toEqual([
        { name: 'from-api', managed_by: null },
        { name: 'from-file', managed_by: 'config' },
      ]);
    } finally {
      await target.close();
    }
  });
});

/** A POST to /api/restore over node:http, so the body can be streamed and the answer read early. */
function rawPost(
  t: TestApp,
  headers: Headers,
  extra: Record<string, string>,
  send: (req: http.ClientRequest, answered: () => boolean) => void,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let done = false;
    const req = http.request(
      `${t.url}/api/restore`,
      { method: 'POST', headers: { ...headers, 'content-type': 'application/json', ...extra } },
      (res) => {
        done = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() });
        });
      },
    );
    // Writing after the server answered and closed may fail; the answer is what counts.
    req.on('error', (error) => (done ? undefined : reject(error)));
    send(req, () => done);
  });
}
