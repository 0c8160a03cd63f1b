import { DataSource } from 'typeorm';
import { EventBus } from '../../src/core/events/event-bus';
import { MutableClock } from './support/clock';
import { call, Headers, setupAdmin } from './support/http';
import { createSensor, sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;

/**
 * No N+1 on the list endpoints: every statement the app runs goes through the connection's query
 * logger (SqlClient reports each one there), so counting its calls during one request counts the
 * statements. Each list is read with 2 rows of everything and again with 50: the counts must match.
 */
describe('statements per list request do not grow with the rows listed (no N+1)', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let first: number;
  const sensors: number[] = [];
  const sites: string[] = [];
  const channels: number[] = [];
  let users = 0;

  /** The statements one GET runs, with the caches that hide reads (sensor list, 24 h uptime) emptied. */
  async function statementsOf(path: string): Promise<{ count: number; sql: string[] }> {
    clock.advance(2 * MINUTE);
    t.app.get(EventBus).emit('sensor', { id: first, action: 'updated' });
    const logger = t.app.get(DataSource).logger;
    const spy = jest.spyOn(logger, 'logQuery');
    try {
      const res = await call(t, 'GET', path, undefined, admin);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      // The alert outbox's relay polls on its own timer (no list reads it); on a slow run it lands here.
      const statements = spy.mock.calls
        .map(([query]) => String(query).replace(/\s+/g, ' '))
        .filter((statement) => !/\balert_outbox\b/.test(statement));
      return { count: statements.length, sql: statements };
    } finally {
      spy.mockRestore();
    }
  }

  /** Grows every list to `n` rows: sites, channels, sensors (each with a site and channels), the rest. */
  async function fillTo(n: number): Promise<void> {
    while (sites.length < n) {
      const name = `site ${sites.length}`;
      expect((await call(t, 'POST', '/api/sites', { name, lat: 1, lon: 2 }, admin)).status).toBe(201);
      sites.push(name);
    }
    while (channels.length < n) {
      const body = {
        name: `hook ${channels.length}`,
        type: 'webhook',
        config: { url: 'http://127.0.0.1:9/' },
      };
      const res = await call<{ id: number }>(t, 'POST', '/api/channels', body, admin);
      expect(res.status).toBe(201);
      channels.push(res.body.id);
    }
    while (sensors.length < n) {
      const i = sensors.length;
      const sensor = await createSensor(t, admin, {
        name: `needle sensor ${i}`,
        type: 'http',
        target: `http://127.0.0.1:9/${i}`,
        site: sites[i],
        tags: [`tag ${i}`],
        channels: [channels[i], channels[(i + 1) % channels.length]],
        enabled: false,
      });
      sensors.push(sensor.id);
    }
    first = sensors[0];
    const now = clock.now();
    // The first sensor's history and incidents, and as many incidents of other sensors.
    const [{ n: results }] = await sql<{ n: number }>(t, 'SELECT count(*) AS n FROM probe_results');
    for (let i = Number(results); i < n; i++) {
      await sql(
        t,
        `INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message)
         VALUES (?, ?, ?, 200, 5, 'needle result')`,
        [first, now - HOUR + i * 1000, i % 2 === 0],
      );
      await sql(
        t,
        `INSERT INTO incidents (sensor_id, started_at, resolved_at, cause, note) VALUES (?, ?, ?, 'needle cause', 'a note')`,
        [first, now - HOUR + i * 1000, now - HOUR + i * 1000 + 500],
      );
      await sql(
        t,
        `INSERT INTO incidents (sensor_id, started_at, resolved_at, cause) VALUES (?, ?, ?, 'needle cause')`,
        [sensors[i], now - 2 * HOUR + i * 1000, now - 2 * HOUR + i * 1000 + 500],
      );
      await sql(
        t,
        `INSERT INTO rollup_hourly (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
         VALUES (?, ?, 60, 59, 300, 5, 5)`,
        [sensors[i], now - (now % HOUR) - HOUR],
      );
    }
    const window = { name: 'w', starts_at: new Date(now + HOUR).toISOString() };
    const [{ n: windows }] = await sql<{ n: number }>(t, 'SELECT count(*) AS n FROM maintenance_windows');
    for (let i = Number(windows); i < n; i++) {
      const body = { ...window, name: `window ${i}`, ends_at: new Date(now + 2 * HOUR).toISOString() };
      const res = await call(t, 'POST', '/api/maintenance', { ...body, sensors: [sensors[i], first] }, admin);
      expect(res.status).toBe(201);
    }
    for (; users < n; users++) {
      const [user] = await sql<{ id: number }>(
        t,
        `INSERT INTO users (username, password_hash, role, created_at, updated_at)
         VALUES (?, 'not a hash', 'viewer', ?, ?) RETURNING id`,
        [`needle user ${users}`, now, now],
      );
      await sql(t, 'INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)', [user.id, 'x']);
    }
  }

  const endpoints = (): string[] => [
    '/api/sensors',
    '/api/summary',
    `/api/sensors/${first}`,
    `/api/sensors/${first}/results?limit=1000`,
    `/api/sensors/${first}/series?range=24h`,
    `/api/sensors/${first}/uptime?range=24h`,
    `/api/sensors/${first}/uptime?range=30d`,
    `/api/sensors/${first}/incidents?limit=1000`,
    '/api/incidents?limit=1000',
    '/api/incidents?limit=1000&q=needle',
    '/api/incidents?limit=1000&state=resolved&range=7d',
    '/api/search?q=needle',
    '/api/maintenance',
    '/api/sites',
    '/api/channels',
    '/api/users',
  ];

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('runs the same number of statements for 2 rows as for 50 on every list endpoint', async () => {
    await fillTo(2);
    const small = new Map<string, { count: number; sql: string[] }>();
    for (const path of endpoints()) small.set(path, await statementsOf(path));
    await fillTo(50);
    for (const path of endpoints()) {
      const large = await statementsOf(path);
      const before = small.get(path)!;
      // The statements themselves on failure, so the one repeated per row is named.
      expect({ path, count: large.count, sql: large.sql }).toEqual({
        path,
        count: before.count,
        sql: large.count === before.count ? large.sql : before.sql,
      });
    }
    // The lists really were long: the counts above compare 2 rows with 50.
    const listed = await call<unknown[]>(t, 'GET', '/api/incidents?limit=1000&q=needle', undefined, admin);
    expect(listed.body).toHaveLength(100);
    const users = await call<{ users: unknown[] }>(t, 'GET', '/api/users', undefined, admin);
    expect(users.body.users).toHaveLength(51);
  });
});
