import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Summary } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { ADMIN, call, Headers, setupAdmin, signIn } from './support/http';
import { createSensor, failure, feed, flush, Sensor, sql, success } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const HOUR = 3_600_000;
const TARGET = 'http://127.0.0.1:9/health';
/** 12:00 UTC sharp: the last 24 full hours are [yesterday 12:00, today 12:00). */
const NOW = Date.parse('2026-11-21T12:00:00Z');

const summaryOf = async (t: TestApp, headers: Headers) => {
  const res = await call<Summary>(t, 'GET', '/api/summary', undefined, headers);
  expect(res.status).toBe(200);
  return res.body;
};

const rollup = (t: TestApp, sensorId: number, start: number, count: number, up: number) =>
  sql(
    t,
    `INSERT INTO rollup_hourly (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
     VALUES (?, ?, ?, ?, 0, NULL, NULL)`,
    [sensorId, start, count, up],
  );

describe('GET /api/summary: the list view values (recent outcomes, 24 h uptime)', () => {
  let dataDir: string;
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let fed: Sensor;
  let quiet: Sensor;
  /** The 55 outcomes fed, oldest first, as `1`/`0`. */
  const pattern = Array.from({ length: 55 }, (_, i) => (i % 7 === 3 || i % 11 === 0 ? '0' : '1')).join('');

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-summary-'));
    clock = new MutableClock(NOW);
    t = await startTestApp({ startScheduler: false, clock, dataDir });
    admin = await setupAdmin(t);
    fed = await createSensor(t, admin, { name: 'fed', type: 'http', target: TARGET });
    quiet = await createSensor(t, admin, { name: 'quiet', type: 'http', target: TARGET });
    for (const [i, outcome] of [...pattern].entries()) {
      await feed(t, fed.id, outcome === '1' ? success() : failure(), NOW - (55 - i) * 1000);
    }
    await flush(t);
  });

  afterAll(async () => {
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('recent holds the last 50 outcomes, oldest first; a sensor without results has ""', async () => {
    const { sensors } = await summaryOf(t, admin);
    expect(sensors.find((s) => s.id === fed.id)?.recent).toBe(pattern.slice(-50));
    expect(sensors.find((s) => s.id === quiet.id)?.recent).toBe('');
  });

  it('the sensors of the list are the sensors of GET /api/sensors plus the two fields', async () => {
    const { sensors } = await summaryOf(t, admin);
    const list = (await call<Sensor[]>(t, 'GET', '/api/sensors', undefined, admin)).body;
    expect(sensors.map(({ uptime_24h: _u, recent: _r, ...sensor }) => sensor)).toEqual(list);
  });

  it('uptime_24h counts the hourly buckets of the last 24 full hours only; null without any', async () => {
    // Inside the window: 2 of 4 hours' results up in total 150 of 200.
    await rollup(t, fed.id, NOW - 24 * HOUR, 100, 90);
    await rollup(t, fed.id, NOW - HOUR, 100, 60);
    // Outside: the hour before the window and the current hour.
    await rollup(t, fed.id, NOW - 25 * HOUR, 100, 0);
    await rollup(t, fed.id, NOW, 100, 0);
    clock.advance(61_000);
    const { sensors } = await summaryOf(t, admin);
    expect(sensors.find((s) => s.id === fed.id)?.uptime_24h).toBe(75);
    expect(sensors.find((s) => s.id === quiet.id)?.uptime_24h).toBeNull();
  });

  it('is read again after a minute, not on every request', async () => {
    await rollup(t, quiet.id, NOW - 2 * HOUR, 3, 1);
    expect((await summaryOf(t, admin)).sensors.find((s) => s.id === quiet.id)?.uptime_24h).toBeNull();
    clock.advance(60_000);
    expect((await summaryOf(t, admin)).sensors.find((s) => s.id === quiet.id)?.uptime_24h).toBe(33.3333);
  });

  it('a live result appends to recent; a restart rebuilds it from the stored results', async () => {
    await feed(t, fed.id, failure(), clock.now());
    const expected = (pattern + '0').slice(-50);
    expect((await summaryOf(t, admin)).sensors.find((s) => s.id === fed.id)?.recent).toBe(expected);
    await flush(t);
    await t.close();
    t = await startTestApp({ startScheduler: false, clock, dataDir });
    admin = await signIn(t, ADMIN.username, ADMIN.password);
    expect((await summaryOf(t, admin)).sensors.find((s) => s.id === fed.id)?.recent).toBe(expected);
  });
});
