import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SeriesResponse, StoredProbeResult, UptimeResponse } from '@monitor/contracts';
import { DataSource } from 'typeorm';
import { sqlClientFor } from '../../src/core/database/sql-client';
import { ResultWriter } from '../../src/history/result-writer.service';
import { RollupMaintenance } from '../../src/history/rollup-maintenance.service';
import { SensorRuntimeService } from '../../src/scheduler/sensor-runtime.service';
import { MutableClock } from './support/clock';
import { apiKeyHeaders, call, Headers, setupAdmin } from './support/http';
import { createSensor, feed, flush, moveTo, sql, success } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Stored history over HTTP: raw results, the maintenance pass (hourly and daily rollups, pruning),
 * and the tiered series and uptime reads. Rows are written straight into the database at chosen
 * times so every bucket's content is known.
 */
jest.setTimeout(60_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 21, 0, 0); // a midnight

interface Row {
  ts: number;
  success: boolean;
  latency?: number | null;
  message?: string;
}

async function insert(t: TestApp, sensorId: number, rows: Row[]): Promise<void> {
  const client = sqlClientFor(t.app.get(DataSource));
  // Multi-row statements in chunks: a row at a time is slow on PostgreSQL.
  await client.transaction(async (tx) => {
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      await tx.run(
        `INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
        chunk.flatMap((r) => [
          sensorId,
          r.ts,
          r.success,
          r.success ? 200 : 503,
          r.latency ?? (r.success ? 10 : null),
          r.message ?? (r.success ? 'HTTP 200' : 'HTTP 503'),
        ]),
      );
    }
  });
}

/** One result a minute from `from` for `minutes` minutes; `ok` decides each one's success. */
const minutely = (
  from: number,
  minutes: number,
  ok: (i: number) => boolean = () => true,
  latency = (i: number) => 10 + (i % 5),
): Row[] =>
  Array.from({ length: minutes }, (_, i) => ({
    ts: from + i * MINUTE,
    success: ok(i),
    latency: ok(i) ? latency(i) : null,
  }));

interface BucketRow {
  sensor_id: number;
  bucket_start: number;
  count: number;
  up: number;
  latency_sum: number;
  latency_min: number | null;
  latency_max: number | null;
}

const buckets = (t: TestApp, tier: 'hourly' | 'daily', sensorId: number) =>
  sql<BucketRow>(t, `SELECT * FROM rollup_${tier} WHERE sensor_id = ? ORDER BY bucket_start`, [sensorId]);
const pass = (t: TestApp) => t.app.get(RollupMaintenance).runPass();

async function start(options: {
  clock: MutableClock;
  file?: unknown;
  dataDir?: string;
  startScheduler?: boolean;
}) {
  const t = await startTestApp({ startScheduler: false, ...options });
  return t;
}

describe('history: results, rollups, retention and tiered reads', () => {
  let t: TestApp;
  let admin: Headers;
  let clock: MutableClock;
  let sensorId: number;

  beforeEach(async () => {
    clock = new MutableClock(T0 + 12 * HOUR + 30 * MINUTE);
    t = await start({ clock });
    admin = await setupAdmin(t);
    sensorId = (await createSensor(t, admin, { name: 'web', type: 'http', target: 'http://127.0.0.1:9/' }))
      .id;
  });

  afterEach(async () => {
    await t.close();
  });

  describe('GET /api/sensors/{id}/results', () => {
    it('answers the newest results first, 40 by default', async () => {
      await insert(
        t,
        sensorId,
        minutely(T0, 100, (i) => i % 10 !== 0),
      );
      const res = await call<StoredProbeResult[]>(
        t,
        'GET',
        `/api/sensors/${sensorId}/results`,
        undefined,
        admin,
      );
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(40);
      expect(res.body[0]).toEqual({
        ts: new Date(T0 + 99 * MINUTE).toISOString(),
        success: true,
        status_code: 200,
        message: 'HTTP 200',
        latency_ms: 14,
        // Rows written here without a prober, as sample data is.
        instance: '',
      });
      expect(res.body[9]).toMatchObject({
        ts: new Date(T0 + 90 * MINUTE).toISOString(),
        success: false,
        message: 'HTTP 503',
      });
      const times = res.body.map((r) => Date.parse(r.ts));
      expect(times).toEqual([...times].sort((a, b) => b - a));
    });

    it('honours limit from 1 to 1000 and refuses anything else with 400 naming it', async () => {
      await insert(t, sensorId, minutely(T0, 1200));
      for (const [limit, length] of [
        ['1', 1],
        ['1000', 1000],
      ] as const) {
        const res = await call<StoredProbeResult[]>(
          t,
          'GET',
          `/api/sensors/${sensorId}/results?limit=${limit}`,
          undefined,
          admin,
        );
        expect(res.body).toHaveLength(length);
      }
      for (const limit of ['0', '1001', 'ten', '-1', '2.5']) {
        const res = await call<{ error: string }>(
          t,
          'GET',
          `/api/sensors/${sensorId}/results?limit=${limit}`,
          undefined,
          admin,
        );
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('limit must be an integer from 1 to 1000');
      }
    });

    it('includes a result still waiting for its batch write', async () => {
      await feed(t, sensorId, success(), clock.now());
      const res = await call<StoredProbeResult[]>(
        t,
        'GET',
        `/api/sensors/${sensorId}/results`,
        undefined,
        admin,
      );
      expect(res.body.map((r) => r.ts)).toEqual([new Date(clock.now()).toISOString()]);
    });

    it('answers 404 for an unknown sensor', async () => {
      for (const endpoint of ['results', 'series', 'uptime']) {
        const res = await call<{ error: string }>(t, 'GET', `/api/sensors/999/${endpoint}`, undefined, admin);
        expect(res.status).toBe(404);
        expect(res.body.error).toBe('no sensor with id 999');
      }
    });
  });

  describe('the maintenance pass', () => {
    it('summarises complete hours only, with count, successes and the latency of successes', async () => {
      // 09:00–12:29, every minute; every 4th result fails. The clock reads 12:30.
      await insert(
        t,
        sensorId,
        minutely(T0 + 9 * HOUR, 210, (i) => i % 4 !== 0),
      );
      const report = await pass(t);
      expect(report.hourly_buckets).toBe(3);
      const hourly = await buckets(t, 'hourly', sensorId);
      expect(hourly.map((b) => b.bucket_start)).toEqual([9, 10, 11].map((h) => T0 + h * HOUR));
      const expected = minutely(T0 + 9 * HOUR, 60, (i) => i % 4 !== 0).filter((r) => r.success);
      expect(hourly[0]).toMatchObject({
        count: 60,
        up: 45,
        latency_sum: expected.reduce((sum, r) => sum + (r.latency ?? 0), 0),
        latency_min: 10,
        latency_max: 14,
      });
      // The 12:00 hour is still running: nothing of it is summarised.
      expect(await sql(t, 'SELECT * FROM rollup_hourly WHERE bucket_start >= ?', [T0 + 12 * HOUR])).toEqual(
        [],
      );
    });

    it('summarises the hour once it is over, and a re-run rewrites the same buckets', async () => {
      await insert(t, sensorId, minutely(T0 + 11 * HOUR, 90));
      await pass(t);
      moveTo(clock, T0 + 13 * HOUR + 5 * MINUTE);
      await insert(t, sensorId, minutely(T0 + 12 * HOUR + 30 * MINUTE, 30));
      const second = await pass(t);
      expect(second.hourly_buckets).toBe(1);
      const before = await buckets(t, 'hourly', sensorId);
      expect(before.map((b) => [b.bucket_start, b.count])).toEqual([
        [T0 + 11 * HOUR, 60],
        [T0 + 12 * HOUR, 60],
      ]);
      // Nothing new: the pass has nothing to do. Forgetting the watermarks redoes the work, rewriting.
      expect((await pass(t)).hourly_buckets).toBe(0);
      await sql(t, "DELETE FROM settings WHERE key LIKE 'history.%'");
      expect((await pass(t)).hourly_buckets).toBe(2);
      expect(await buckets(t, 'hourly', sensorId)).toEqual(before);
    });

    it('summarises complete days from the hourly buckets', async () => {
      moveTo(clock, T0 + 2 * DAY + 3 * HOUR);
      await insert(
        t,
        sensorId,
        minutely(T0 - 12 * HOUR, 60 * 24 * 2, (i) => i % 2 === 0),
      );
      const report = await pass(t);
      expect(report.daily_buckets).toBe(3); // from noon the day before T0 to noon the day after; not today
      const daily = await buckets(t, 'daily', sensorId);
      expect(daily.map((b) => [b.bucket_start, b.count, b.up])).toEqual([
        [T0 - DAY, 720, 360],
        [T0, 1440, 720],
        [T0 + DAY, 720, 360],
      ]);
      const hourly = await buckets(t, 'hourly', sensorId);
      const dayOfT0 = hourly.filter((b) => b.bucket_start >= T0 && b.bucket_start < T0 + DAY);
      expect(daily[1].latency_sum).toBeCloseTo(dayOfT0.reduce((s, b) => s + b.latency_sum, 0));
      expect(daily[1].latency_min).toBe(Math.min(...dayOfT0.map((b) => b.latency_min ?? Infinity)));
      expect(daily[1].latency_max).toBe(Math.max(...dayOfT0.map((b) => b.latency_max ?? -Infinity)));
    });

    it('leaves an hour open while one of its results is still waiting to be written', async () => {
      await insert(t, sensorId, minutely(T0 + 9 * HOUR, 60));
      // Held in memory (a result is written within 100 ms of being queued otherwise).
      const release = t.app.get(ResultWriter).hold();
      await t.app.get(SensorRuntimeService).submit(sensorId, success(), T0 + 10 * HOUR + 59 * MINUTE);
      await pass(t);
      expect((await buckets(t, 'hourly', sensorId)).map((b) => b.bucket_start)).toEqual([T0 + 9 * HOUR]);
      release();
      await flush(t);
      await pass(t);
      expect((await buckets(t, 'hourly', sensorId)).map((b) => [b.bucket_start, b.count])).toEqual([
        [T0 + 9 * HOUR, 60],
        [T0 + 10 * HOUR, 1],
      ]);
    });

    it('leaves sensors without results alone and writes no empty buckets', async () => {
      const quiet = await createSensor(t, admin, { name: 'quiet', type: 'tcp', target: '127.0.0.1:9' });
      await insert(t, sensorId, [
        { ts: T0 + 9 * HOUR, success: true },
        { ts: T0 + 11 * HOUR, success: true },
      ]);
      await pass(t);
      expect((await buckets(t, 'hourly', sensorId)).map((b) => b.bucket_start)).toEqual([
        T0 + 9 * HOUR,
        T0 + 11 * HOUR,
      ]);
      expect(await buckets(t, 'hourly', quiet.id)).toEqual([]);
    });
  });

  describe('GET /api/sensors/{id}/series and /uptime', () => {
    it('reads raw results for 1h, 24h and 7d, hourly buckets for 30d and 90d, daily for 1y and all', async () => {
      await insert(t, sensorId, minutely(T0 - 3 * DAY, 60 * 24 * 3 + 12 * 60));
      await pass(t);
      for (const [range, tier] of [
        ['1h', 'raw'],
        ['24h', 'raw'],
        ['7d', 'raw'],
        ['30d', 'hourly'],
        ['90d', 'hourly'],
        ['1y', 'daily'],
        ['all', 'daily'],
      ]) {
        const series = await call<SeriesResponse>(
          t,
          'GET',
          `/api/sensors/${sensorId}/series?range=${range}`,
          undefined,
          admin,
        );
        expect([range, series.status, series.body.tier]).toEqual([range, 200, tier]);
        expect(series.body.points.length).toBeLessThanOrEqual(401);
        const uptime = await call<UptimeResponse>(
          t,
          'GET',
          `/api/sensors/${sensorId}/uptime?range=${range}`,
          undefined,
          admin,
        );
        expect([range, uptime.status, uptime.body.tier]).toEqual([range, 200, tier]);
      }
    });

    it('never mixes tiers: an hourly range does not count the raw results of the running hour', async () => {
      await insert(t, sensorId, minutely(T0 + 10 * HOUR, 150)); // 10:00–12:29
      await pass(t); // summarises 10:00 and 11:00
      const hourly = await call<UptimeResponse>(
        t,
        'GET',
        `/api/sensors/${sensorId}/uptime?range=30d`,
        undefined,
        admin,
      );
      expect(hourly.body.uptime).toEqual({ percent: 100, count: 120, up: 120 });
      const raw = await call<UptimeResponse>(
        t,
        'GET',
        `/api/sensors/${sensorId}/uptime?range=24h`,
        undefined,
        admin,
      );
      expect(raw.body.uptime).toEqual({ percent: 100, count: 150, up: 150 });
    });

    it('leaves gaps out of the uptime denominator and gives empty points as count 0 with nulls', async () => {
      // 06:00 all up, 07:00 nothing at all, 08:00 half up.
      await insert(t, sensorId, [
        ...minutely(T0 + 6 * HOUR, 60),
        ...minutely(T0 + 8 * HOUR, 60, (i) => i % 2 === 0),
      ]);
      await pass(t);
      const uptime = await call<UptimeResponse>(
        t,
        'GET',
        `/api/sensors/${sensorId}/uptime?range=30d`,
        undefined,
        admin,
      );
      expect(uptime.body.uptime).toEqual({ percent: 75, count: 120, up: 90 });
      const raw = await call<UptimeResponse>(
        t,
        'GET',
        `/api/sensors/${sensorId}/uptime?range=24h`,
        undefined,
        admin,
      );
      expect(raw.body.uptime.percent).toBe(75);

      const series = await call<SeriesResponse>(
        t,
        'GET',
        `/api/sensors/${sensorId}/series?range=30d`,
        undefined,
        admin,
      );
      expect(series.body.step_seconds).toBe(7200);
      const byTs = new Map(series.body.points.map((p) => [p.ts, p]));
      expect(byTs.get(new Date(T0 + 6 * HOUR).toISOString())).toMatchObject({
        count: 60,
        up: 60,
        uptime: 100,
      });
      expect(byTs.get(new Date(T0 + 8 * HOUR).toISOString())).toMatchObject({
        count: 60,
        up: 30,
        uptime: 50,
      });
      expect(byTs.get(new Date(T0 + 2 * HOUR).toISOString())).toEqual({
        ts: new Date(T0 + 2 * HOUR).toISOString(),
        count: 0,
        up: null,
        uptime: null,
        avg_ms: null,
        min_ms: null,
        max_ms: null,
      });
    });

    it('series of 1h are minute points from raw results with latency statistics of successes', async () => {
      await insert(t, sensorId, [
        { ts: T0 + 12 * HOUR + 10 * MINUTE, success: true, latency: 20 },
        { ts: T0 + 12 * HOUR + 10 * MINUTE + 20_000, success: true, latency: 40 },
        { ts: T0 + 12 * HOUR + 10 * MINUTE + 40_000, success: false, latency: 9000 },
      ]);
      const res = await call<SeriesResponse>(
        t,
        'GET',
        `/api/sensors/${sensorId}/series?range=1h`,
        undefined,
        admin,
      );
      expect(res.body).toMatchObject({
        range: '1h',
        tier: 'raw',
        step_seconds: 60,
        to: new Date(clock.now()).toISOString(),
      });
      expect(res.body.points).toHaveLength(60);
      expect(res.body.points.find((p) => p.count > 0)).toEqual({
        ts: new Date(T0 + 12 * HOUR + 10 * MINUTE).toISOString(),
        count: 3,
        up: 2,
        uptime: 66.6667,
        avg_ms: 30,
        min_ms: 20,
        max_ms: 40,
      });
      expect(
        res.body.points.filter((p) => p.count === 0).every((p) => p.uptime === null && p.avg_ms === null),
      ).toBe(true);
    });

    it('answers uptime with latency, the incidents overlapping the window and the downtime', async () => {
      await insert(
        t,
        sensorId,
        minutely(T0 + 10 * HOUR, 120, (i) => i < 30 || i >= 50),
      ); // 20 failures
      const started = T0 + 10 * HOUR + 30 * MINUTE;
      await sql(
        t,
        'INSERT INTO incidents (sensor_id, started_at, resolved_at, cause) VALUES (?, ?, ?, ?), (?, ?, ?, ?), (?, ?, NULL, ?)',
        [
          sensorId,
          started,
          started + 20 * MINUTE,
          'HTTP 503',
          sensorId,
          T0 - 3 * DAY,
          T0 - 3 * DAY + HOUR,
          'old',
          sensorId,
          T0 + 12 * HOUR + 20 * MINUTE,
          'timeout',
        ],
      );
      const res = await call<UptimeResponse>(
        t,
        'GET',
        `/api/sensors/${sensorId}/uptime?range=24h`,
        undefined,
        admin,
      );
      expect(res.status).toBe(200);
      expect(res.body.uptime).toEqual({ percent: 83.3333, count: 120, up: 100 });
      expect(res.body.latency).toEqual({ avg_ms: 12, min_ms: 10, max_ms: 14 });
      expect(res.body.incidents.count).toBe(2);
      expect(res.body.incidents.items.map((i) => i.cause)).toEqual(['timeout', 'HTTP 503']);
      expect(res.body.incidents.items[1]).toMatchObject({
        sensor_id: sensorId,
        sensor_name: 'web',
        resolved_at: new Date(started + 20 * MINUTE).toISOString(),
      });
      // 20 minutes closed plus 10 minutes of the open one (12:20 until now, 12:30).
      expect(res.body.downtime).toEqual({ seconds: 30 * 60 });
      const week = await call<UptimeResponse>(
        t,
        'GET',
        `/api/sensors/${sensorId}/uptime?range=7d`,
        undefined,
        admin,
      );
      expect(week.body.incidents.count).toBe(3);
      expect(week.body.downtime.seconds).toBe(90 * 60);
    });

    it('answers null figures for a window without samples', async () => {
      const res = await call<UptimeResponse>(
        t,
        'GET',
        `/api/sensors/${sensorId}/uptime?range=1y`,
        undefined,
        admin,
      );
      expect(res.body).toMatchObject({
        range: '1y',
        tier: 'daily',
        uptime: { percent: null, count: 0, up: 0 },
        latency: { avg_ms: null, min_ms: null, max_ms: null },
        incidents: { count: 0, items: [] },
        downtime: { seconds: 0 },
      });
    });

    it('refuses an invalid range with 400 naming the values, and defaults to 24h', async () => {
      for (const endpoint of ['series', 'uptime']) {
        const bad = await call<{ error: string }>(
          t,
          'GET',
          `/api/sensors/${sensorId}/${endpoint}?range=2w`,
          undefined,
          admin,
        );
        expect(bad.status).toBe(400);
        expect(bad.body.error).toBe('range must be one of 1h, 24h, 7d, 30d, 90d, 1y, all');
        const unknown = await call<{ error: string }>(
          t,
          'GET',
          `/api/sensors/${sensorId}/${endpoint}?window=7d`,
          undefined,
          admin,
        );
        expect(unknown.status).toBe(400);
        const fallback = await call<SeriesResponse>(
          t,
          'GET',
          `/api/sensors/${sensorId}/${endpoint}`,
          undefined,
          admin,
        );
        expect(fallback.body).toMatchObject({ range: '24h', tier: 'raw' });
      }
    });

    it('starts "all" at the oldest daily bucket', async () => {
      const key = await apiKeyHeaders(t, admin); // a session would expire in these 40 days
      moveTo(clock, T0 + 40 * DAY);
      await insert(t, sensorId, minutely(T0 + 5 * HOUR, 30));
      await pass(t);
      const res = await call<SeriesResponse>(
        t,
        'GET',
        `/api/sensors/${sensorId}/series?range=all`,
        undefined,
        key,
      );
      expect(res.body).toMatchObject({
        tier: 'daily',
        from: new Date(T0).toISOString(),
        step_seconds: 86400,
      });
      expect(res.body.points).toHaveLength(40); // T0 up to, not including, today
      expect(res.body.points[0]).toMatchObject({ count: 30, up: 30, uptime: 100 });
    });
  });
});

describe('history: retention', () => {
  it('prunes raw results and hourly buckets past their retention and keeps every rollup above', async () => {
    const clock = new MutableClock(T0 + 10 * DAY + 30 * MINUTE);
    const t = await start({ clock, file: { retention: { raw: '2d', hourly: '4d' } } });
    try {
      const admin = await setupAdmin(t);
      const { id } = await createSensor(t, admin, {
        name: 'web',
        type: 'http',
        target: 'http://127.0.0.1:9/',
      });
      // One result every ten minutes for the last ten days.
      const rows = Array.from({ length: 6 * 24 * 10 }, (_, i) => ({
        ts: T0 + i * 10 * MINUTE,
        success: true,
        latency: 5,
      }));
      await insert(t, id, rows);
      const report = await pass(t);
      const now = clock.now();
      const [raw] = await sql<{ n: number; oldest: number }>(
        t,
        'SELECT count(*) AS n, min(ts) AS oldest FROM probe_results WHERE sensor_id = ?',
        [id],
      );
      expect(raw.oldest).toBeGreaterThanOrEqual(now - 2 * DAY);
      expect(report.pruned_raw).toBe(rows.length - raw.n);
      // Settings count the results from the rollups plus the rows around them: still exact.
      const settings = await call<{ stats: { results: number; oldest_sample: string } }>(
        t,
        'GET',
        '/api/settings',
        undefined,
        admin,
      );
      expect(settings.body.stats.results).toBe(raw.n);
      expect(settings.body.stats.oldest_sample).toBe(new Date(raw.oldest).toISOString());
      const hourly = await buckets(t, 'hourly', id);
      expect(hourly[0].bucket_start).toBeGreaterThanOrEqual(now - 4 * DAY);
      expect(report.pruned_hourly).toBeGreaterThan(0);
      // Every complete day stays, summarised before its hours went.
      const daily = await buckets(t, 'daily', id);
      expect(daily.map((b) => [b.bucket_start, b.count])).toEqual(
        Array.from({ length: 10 }, (_, d) => [T0 + d * DAY, 144]),
      );
      // With this retention 7d reads hourly buckets and 30d daily ones: both still answer.
      const week = await call<UptimeResponse>(
        t,
        'GET',
        `/api/sensors/${id}/uptime?range=7d`,
        undefined,
        admin,
      );
      expect(week.body.tier).toBe('daily');
      const day = await call<UptimeResponse>(
        t,
        'GET',
        `/api/sensors/${id}/uptime?range=24h`,
        undefined,
        admin,
      );
      expect(day.body).toMatchObject({ tier: 'raw', uptime: { percent: 100, count: 141, up: 141 } });
      const threeDays = await call<SeriesResponse>(
        t,
        'GET',
        `/api/sensors/${id}/series?range=30d`,
        undefined,
        admin,
      );
      expect(threeDays.body.tier).toBe('daily');
      expect(threeDays.body.points.filter((p) => p.count > 0)).toHaveLength(10);
    } finally {
      await t.close();
    }
  });

  it('runs a pass at start once the scheduler starts', async () => {
    const clock = new MutableClock(T0 + 12 * HOUR);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-history-'));
    const first = await start({ clock, dataDir });
    const admin = await setupAdmin(first);
    const { id } = await createSensor(first, admin, {
      name: 'web',
      type: 'http',
      target: 'http://127.0.0.1:9/',
      enabled: false,
    });
    await insert(first, id, minutely(T0 + 9 * HOUR, 120));
    await first.close();

    const second = await start({ clock, dataDir, startScheduler: true });
    try {
      const until = Date.now() + 10_000;
      while (!second.logs.some((l) => l.msg === 'history maintenance pass') && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const line = second.logs.find((l) => l.msg === 'history maintenance pass');
      expect(line).toMatchObject({ level: 'info', hourly_buckets: 2 });
      expect((await buckets(second, 'hourly', id)).length).toBe(2);
    } finally {
      await second.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
