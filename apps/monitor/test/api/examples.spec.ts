import type { ExampleCounts, Sensor, UptimeResponse } from '@monitor/contracts';
import { RollupMaintenance } from '../../src/history/rollup-maintenance.service';
import { MutableClock } from './support/clock';
import { accountWithRole, call, Headers, setupAdmin } from './support/http';
import { createSensor, feed, flush, sql, success } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

/** Sample data over HTTP: load, count, idempotency, removal and the file-configured refusal. */
jest.setTimeout(60_000);

const HOUR = 3_600_000;

describe('sample data', () => {
  let t: TestApp;
  let admin: Headers;
  let clock: MutableClock;

  beforeEach(async () => {
    clock = new MutableClock(Date.parse('2026-11-21T12:30:00Z'));
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
  });

  afterEach(async () => {
    await t.close();
  });

  const counts = async (method = 'GET', headers = admin) =>
    call<ExampleCounts>(t, method, '/api/examples', undefined, headers);
  const sensors = async () => (await call<Sensor[]>(t, 'GET', '/api/sensors', undefined, admin)).body;

  it('counts nothing before loading', async () => {
    expect((await counts()).body).toEqual({ sensors: 0, results: 0, incidents: 0, sites: 0 });
  });

  it('loads sensors of every type with a week of history, incidents and rollups, marked as sample', async () => {
    // A sensor of the user's own with a result, so the maintenance pass has run before the load.
    const own = await createSensor(t, admin, { name: 'own', type: 'http', target: 'http://127.0.0.1:9/' });
    await feed(t, own.id, success(), clock.now() - 2 * HOUR);
    await flush(t);
    await t.app.get(RollupMaintenance).runPass();

    const loaded = await counts('POST');
    expect(loaded.status).toBe(200);
    expect(loaded.body.sensors).toBe(10);
    expect(loaded.body.sites).toBe(3);
    expect(loaded.body.results).toBeGreaterThan(10 * 2000);
    expect(loaded.body.incidents).toBeGreaterThanOrEqual(4);
    expect((await counts()).body).toEqual(loaded.body);

    const list = await sensors();
    const samples = list.filter((s) => s.sample);
    expect(new Set(samples.map((s) => s.type))).toEqual(
      new Set(['http', 'tcp', 'dns', 'ping', 'snmp', 'docker']),
    );
    // Only the sensors that watch this monitor run; the rest point at documentation addresses, paused.
    const running = samples.filter((s) => s.enabled);
    expect(running.map((s) => s.target).sort()).toEqual([new URL(t.url).host, `${t.url}/healthz`].sort());
    expect(samples.filter((s) => !s.enabled).every((s) => s.status === 'paused')).toBe(true);
    // History shows at once, and secrets are masked as for any sensor.
    expect(samples.every((s) => s.sparkline.length === 30)).toBe(true);
    expect(samples.find((s) => s.type === 'snmp')?.options.community).toBe('__stored__');
    expect(list.find((s) => s.name === 'own')?.sample).toBe(false);

    const shop = samples.find((s) => s.name === 'Shop API')!;
    const week = await call<UptimeResponse>(
      t,
      'GET',
      `/api/sensors/${shop.id}/uptime?range=7d`,
      undefined,
      admin,
    );
    expect(week.body.uptime.count).toBeGreaterThan(2000);
    expect(week.body.uptime.percent).toBeLessThan(100);
    expect(week.body.incidents.count).toBe(2);
    // Hours the pass had already covered got their buckets with the load; the rest come with the next pass.
    const [hourly] = await sql<{ n: number }>(
      t,
      'SELECT count(*) AS n FROM rollup_hourly WHERE sensor_id = ?',
      [shop.id],
    );
    expect(hourly.n).toBeGreaterThanOrEqual(24 * 7 - 2);
    const month = await call<UptimeResponse>(
      t,
      'GET',
      `/api/sensors/${shop.id}/uptime?range=30d`,
      undefined,
      admin,
    );
    expect(month.body.tier).toBe('hourly');
    expect(month.body.uptime.count).toBeGreaterThan(1900);
    const settings = await call<{ stats: { results: number } }>(t, 'GET', '/api/settings', undefined, admin);
    const [raw] = await sql<{ n: number }>(t, 'SELECT count(*) AS n FROM probe_results');
    expect(settings.body.stats.results).toBe(raw.n);
  });

  it('is idempotent: a second load adds nothing, and names already present are left alone', async () => {
    const mine = await createSensor(t, admin, { name: 'Shop API', type: 'tcp', target: '127.0.0.1:9' });
    const first = await counts('POST');
    expect(first.body.sensors).toBe(9);
    const again = await counts('POST');
    expect(again.body).toEqual(first.body);
    const shops = (await sensors()).filter((s) => s.name === 'Shop API');
    expect(shops).toEqual([expect.objectContaining({ id: mine.id, type: 'tcp', sample: false })]);
  });

  it('removes only sample sensors with their history, and sample sites left empty', async () => {
    const loaded = (await counts('POST')).body;
    const own = await createSensor(t, admin, {
      name: 'own',
      type: 'http',
      target: 'http://127.0.0.1:9/',
      site: 'Singapore',
    });
    const removed = await counts('DELETE');
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ ...loaded, sites: 2 });
    expect((await counts()).body).toEqual({ sensors: 0, results: 0, incidents: 0, sites: 1 });
    expect((await sensors()).map((s) => [s.id, s.site])).toEqual([[own.id, 'Singapore']]);
    expect(await sql(t, 'SELECT count(*) AS n FROM rollup_hourly')).toEqual([{ n: 0 }]);
    expect((await counts('DELETE')).body).toEqual({ sensors: 0, results: 0, incidents: 0, sites: 0 });
  });

  it('lets any role count but only administrators load and remove', async () => {
    for (const role of ['viewer', 'operator'] as const) {
      const { headers } = await accountWithRole(t, admin, `a-${role}`, role);
      expect((await counts('GET', headers)).status).toBe(200);
      expect((await counts('POST', headers)).status).toBe(403);
      expect((await counts('DELETE', headers)).status).toBe(403);
    }
  });
});

describe('sample data on a file-configured installation', () => {
  it('refuses to load with 409', async () => {
    const t = await startTestApp({
      startScheduler: false,
      file: { sites: [{ name: 'HQ', kind: 'local' }] },
    });
    try {
      const admin = await setupAdmin(t);
      const res = await call<{ error: string }>(t, 'POST', '/api/examples', undefined, admin);
      expect(res.status).toBe(409);
      expect(res.body.error).toBe(
        'this installation is configured from a file: sample data cannot be loaded',
      );
    } finally {
      await t.close();
    }
  });
});
