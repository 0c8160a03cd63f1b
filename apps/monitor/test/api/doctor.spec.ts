import type { DoctorCheck, DoctorReport } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { accountWithRole, apiKeyHeaders, call, Headers, setupAdmin } from './support/http';
import { createSensor, feed, flush, record, sql, success } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';
import { testBackend } from '../support/test-database';

jest.setTimeout(60_000);

const SECOND = 1000;
const HOUR = 3600 * SECOND;
// PostgreSQL adds `tables` (table sizes) after the migrations; SQLite's file size is in `database`.
const CHECK_NAMES = [
  'data_directory',
  'database',
  'migrations',
  ...(testBackend() === 'postgres' ? ['tables'] : []),
  'disk',
  'writes',
  'scheduler',
  'delivery',
  'cluster',
];

const sensorBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'http',
  target: 'http://127.0.0.1:9/',
  interval: 60,
  ...extra,
});

const checkOf = (report: DoctorReport, name: string): DoctorCheck => {
  const found = report.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no ${name} check in ${JSON.stringify(report)}`);
  return found;
};

/** Every table's row count and the settings rows: what "nothing written" is measured by. */
async function snapshot(t: TestApp): Promise<unknown> {
  const tables = await sql<{ name: string }>(
    t,
    testBackend() === 'postgres'
      ? `SELECT table_name AS name FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`
      : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables)
    counts[name] = (await sql<{ n: number }>(t, `SELECT count(*) AS n FROM "${name}"`))[0].n;
  return {
    counts,
    settings: await sql(t, 'SELECT * FROM settings ORDER BY key'),
    sensors: await sql(t, 'SELECT * FROM sensors ORDER BY id'),
    channels: await sql(t, 'SELECT * FROM channels ORDER BY id'),
  };
}

describe('doctor: POST /api/doctor', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let operator: Headers;
  let viewer: Headers;

  const doctor = async (headers: Headers = operator) => {
    const res = await call<DoctorReport>(t, 'POST', '/api/doctor', undefined, headers);
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    operator = (await accountWithRole(t, admin, 'otto', 'operator')).headers;
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
  });

  afterAll(async () => {
    await t.close();
  });

  it('a healthy installation: ok true with every check named and passing', async () => {
    await createSensor(t, admin, sensorBody('web'));
    const report = await doctor();
    expect(report.checks.map((c) => c.name)).toEqual(CHECK_NAMES);
    for (const check of report.checks) {
      expect(check).toEqual({ name: check.name, ok: true, detail: expect.any(String) });
      expect(check.detail).not.toBe('');
    }
    expect(report.ok).toBe(true);
    expect(checkOf(report, 'data_directory').detail).toContain(t.dataDir);
    expect(checkOf(report, 'migrations').detail).toMatch(/none pending/);
    expect(checkOf(report, 'scheduler').detail).toMatch(/1 enabled sensor, none overdue/);
  });

  it('operator, admin and the API key may run it; a viewer is refused (403), nobody signed in 401', async () => {
    expect((await doctor(admin)).ok).toBe(true);
    expect((await doctor(await apiKeyHeaders(t, admin))).ok).toBe(true);
    expect((await call(t, 'POST', '/api/doctor', undefined, viewer)).status).toBe(403);
    expect((await call(t, 'POST', '/api/doctor', undefined, {})).status).toBe(401);
  });

  describe('scheduler', () => {
    let late: { id: number };

    beforeAll(async () => {
      // A fresh start point for this block: every sensor was just checked.
      late = await createSensor(t, admin, sensorBody('late one', { interval: 30, options: { timeout: 5 } }));
      const paused = await createSensor(t, admin, sensorBody('paused one', { interval: 30 }));
      await call(t, 'PATCH', `/api/sensors/${paused.id}`, { enabled: false }, operator);
      for (const { id } of await sql<{ id: number }>(t, 'SELECT id FROM sensors WHERE enabled = ?', [true]))
        await feed(t, id, success(), clock.now());
    });

    it('is ok up to twice the interval plus the time-out since the last check', async () => {
      clock.advance((2 * 30 + 5) * SECOND);
      expect(checkOf(await doctor(), 'scheduler').ok).toBe(true);
    });

    it('fails naming an enabled sensor checked longer ago than that, never a paused one', async () => {
      clock.advance(1 * SECOND);
      const report = await doctor();
      const check = checkOf(report, 'scheduler');
      expect(report.ok).toBe(false);
      expect(check.ok).toBe(false);
      expect(check.detail).toContain('"late one"');
      expect(check.detail).toMatch(/1 of 2 enabled sensors overdue/);
      expect(check.detail).not.toContain('paused one');
      expect(check.detail).not.toContain('"web"');
    });

    it('a check clears it', async () => {
      await feed(t, late.id, success(), clock.now());
      expect(checkOf(await doctor(), 'scheduler').ok).toBe(true);
    });

    it('a sensor never checked is overdue once it has been enabled for longer than that', async () => {
      const fresh = await createSensor(t, admin, sensorBody('never checked', { interval: 10 }));
      // Keep the others fresh while the new one ages: interval 10, time-out min(10, 10) = 10 → 30 s.
      clock.advance(30 * SECOND);
      for (const { id } of await sql<{ id: number }>(
        t,
        'SELECT id FROM sensors WHERE enabled = ? AND id != ?',
        [true, fresh.id],
      ))
        await feed(t, id, success(), clock.now());
      expect(checkOf(await doctor(), 'scheduler').ok).toBe(true);
      clock.advance(1 * SECOND);
      const check = checkOf(await doctor(), 'scheduler');
      expect(check.ok).toBe(false);
      expect(check.detail).toContain('"never checked"');
      await feed(t, fresh.id, success(), clock.now());
    });

    it('names at most five overdue sensors and counts the rest', async () => {
      for (let i = 1; i <= 6; i++) await createSensor(t, admin, sensorBody(`batch ${i}`, { interval: 60 }));
      clock.advance(24 * HOUR);
      const check = checkOf(await doctor(), 'scheduler');
      expect(check.ok).toBe(false);
      const named = check.detail.match(/"[^"]+"/g) ?? [];
      expect(named).toHaveLength(5);
      expect(check.detail).toMatch(/9 of 9 enabled sensors overdue/);
      expect(check.detail).toMatch(/ and 4 more$/);
      for (const { id } of await sql<{ id: number }>(t, 'SELECT id FROM sensors WHERE enabled = ?', [true]))
        await feed(t, id, success(), clock.now());
      await flush(t);
      expect(checkOf(await doctor(), 'scheduler').ok).toBe(true);
    });
  });

  describe('delivery', () => {
    let channelId: number;

    beforeAll(async () => {
      const quiet = await call<{ id: number }>(
        t,
        'POST',
        '/api/channels',
        { name: 'quiet', type: 'webhook', config: { url: 'http://127.0.0.1:9/' } },
        admin,
      );
      const res = await call<{ id: number }>(
        t,
        'POST',
        '/api/channels',
        { name: 'ops hook', type: 'webhook', config: { url: 'http://127.0.0.1:9/' } },
        admin,
      );
      expect([quiet.status, res.status]).toEqual([201, 201]);
      channelId = res.body.id;
    });

    it('is ok while no channel has a recent error', async () => {
      const check = checkOf(await doctor(), 'delivery');
      expect(check.ok).toBe(true);
    });

    it('fails naming a channel whose last delivery failed within 24 hours', async () => {
      await sql(t, 'UPDATE channels SET last_error = ?, last_error_at = ? WHERE id = ?', [
        'HTTP 503 from the webhook',
        clock.now() - 2 * HOUR,
        channelId,
      ]);
      const report = await doctor();
      const check = checkOf(report, 'delivery');
      expect(report.ok).toBe(false);
      expect(check.ok).toBe(false);
      expect(check.detail).toContain('"ops hook"');
      expect(check.detail).toContain('HTTP 503');
      expect(check.detail).not.toContain('quiet');
    });

    it('an error older than 24 hours, or a cleared one, does not count', async () => {
      await sql(t, 'UPDATE channels SET last_error_at = ? WHERE id = ?', [
        clock.now() - 25 * HOUR,
        channelId,
      ]);
      expect(checkOf(await doctor(), 'delivery').ok).toBe(true);
      await sql(t, "UPDATE channels SET last_error = '', last_error_at = NULL WHERE id = ?", [channelId]);
      expect(checkOf(await doctor(), 'delivery').ok).toBe(true);
    });
  });

  it('changes nothing and sends nothing, also when it finds problems', async () => {
    clock.advance(24 * HOUR); // every sensor overdue
    await sql(t, "UPDATE channels SET last_error = 'HTTP 500', last_error_at = ? WHERE name = 'quiet'", [
      clock.now(),
    ]);
    await flush(t);
    const before = await snapshot(t);
    const events = (['alert', 'sensor', 'channel', 'settings', 'status', 'result', 'incident'] as const).map(
      (kind) => record(t, kind),
    );
    const report = await doctor();
    expect(report.ok).toBe(false);
    expect(report.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['scheduler', 'delivery']);
    await doctor(admin);
    await flush(t);
    for (const recorder of events) {
      recorder.stop();
      expect(recorder.events).toEqual([]);
    }
    expect(await snapshot(t)).toEqual(before);
  });
});
