import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SettingsResponse } from '@monitor/contracts';
import { DeliveryService } from '../../src/channels/delivery.service';
import { MetricsService } from '../../src/metrics/metrics.service';
import { MutableClock } from './support/clock';
import { accountWithRole, ADMIN, call, expectNoSecretsIn, Headers, setupAdmin } from './support/http';
import { createSensor, failure, feed, flush, sql, startHttpTarget, success } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';
import { describeOnPostgres } from '../support/test-database';

jest.setTimeout(60_000);

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** `promtool check metrics` on the text: its exit status and what it said. */
function promtool(text: string): { status: number | null; output: string } {
  const run = spawnSync('/usr/bin/promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** What promtool says of prom-client's own default metrics (named so before our time): accepted. */
const DEFAULT_METRIC_LINT =
  /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

/** promtool parses the text and finds nothing to complain about but prom-client's default metric names. */
function expectPromtoolAccepts(text: string): void {
  const { status, output } = promtool(text);
  expect(output.split('\n').filter((line) => line !== '' && !DEFAULT_METRIC_LINT.test(line))).toEqual([]);
  // 3: lint findings only (those above); a parse error is 1.
  expect([0, 3]).toContain(status);
}

/** The value of the one series with exactly these labels, or undefined. */
function valueOf(text: string, name: string, labels: Record<string, string>): number | undefined {
  const rendered = Object.entries(labels)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`)
    .join(',');
  const prefix = `${name}{${rendered}} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

describe('GET /metrics', () => {
  const clock = new MutableClock(Date.parse('2026-11-21T12:30:00Z'));
  let t: TestApp;
  let admin: Headers;
  let viewer: Headers;
  const tokens: string[] = [];
  /** Indexes in t.bodies of the answers that may show a token: its creation. */
  const showsToken = new Set<number>();

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    ({ headers: viewer } = await accountWithRole(t, admin, 'vera', 'viewer'));
  });

  afterAll(async () => {
    expectNoSecretsIn(
      t.bodies.filter((_b, i) => !showsToken.has(i)),
      [ADMIN.password, ...tokens],
    );
    await t.close();
  });

  const createToken = async (): Promise<string> => {
    const before = t.bodies.length;
    const res = await call<{ metrics_token: string; created_at: string }>(
      t,
      'POST',
      '/api/metrics-token',
      undefined,
      admin,
    );
    for (let i = before; i < t.bodies.length; i++) showsToken.add(i);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'metrics_token']);
    expect(res.body.created_at).toBe(new Date(clock.now()).toISOString());
    tokens.push(res.body.metrics_token);
    return res.body.metrics_token;
  };

  const scrape = async (headers: Headers): Promise<{ status: number; text: string; type: string }> => {
    const res = await t.request('/metrics', { headers });
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
  };
  const bearer = (token: string): Headers => ({ authorization: `Bearer ${token}` });

  it('answers the metrics token, the API key and a session; refuses no or a wrong credential with 401', async () => {
    const token = await createToken();
    const viaToken = await scrape(bearer(token));
    expect(viaToken.status).toBe(200);
    expect(viaToken.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(viaToken.text).toContain('# TYPE monitor_sensor_up gauge');
    expect(viaToken.text).toContain('process_cpu_user_seconds_total');
    const key = await call<{ api_key: string }>(t, 'POST', '/api/api-key', undefined, admin);
    expect((await scrape(bearer(key.body.api_key))).status).toBe(200);
    expect((await scrape({ 'x-api-key': key.body.api_key })).status).toBe(200);
    expect((await scrape(viewer)).status).toBe(200);
    expect((await scrape({})).status).toBe(401);
    expect((await scrape(bearer(`${token}x`))).status).toBe(401);
    expect((await scrape(bearer('mt_not-a-token'))).status).toBe(401);
    // The token as an API key header is no API key.
    expect((await scrape({ 'x-api-key': token })).status).toBe(401);
  });

  it('gives the metrics token nothing but GET /metrics', async () => {
    const token = await createToken();
    for (const [method, path] of [
      ['GET', '/api/sensors'],
      ['GET', '/api/settings'],
      ['POST', '/api/metrics-token'],
      ['DELETE', '/api/metrics-token'],
      ['POST', '/api/api-key'],
    ]) {
      const res = await call<{ error: string }>(t, method, path, undefined, bearer(token));
      expect([method, path, res.status]).toEqual([method, path, 403]);
      expect(res.body.error).toMatch(/metrics token/);
    }
    // A public route sees nobody signed in.
    const session = await call<{ authenticated: boolean }>(
      t,
      'GET',
      '/api/session',
      undefined,
      bearer(token),
    );
    expect(session.body.authenticated).toBe(false);
  });

  it('rotates (the old token stops at once) and removes the token; settings tell whether one is set', async () => {
    const first = await createToken();
    clock.advance(60_000);
    const second = await createToken();
    expect(second).not.toBe(first);
    expect((await scrape(bearer(first))).status).toBe(401);
    expect((await scrape(bearer(second))).status).toBe(200);
    for (const headers of [admin, viewer]) {
      const settings = await call<SettingsResponse>(t, 'GET', '/api/settings', undefined, headers);
      expect(settings.body.metrics_token).toEqual({
        set: true,
        created_at: new Date(clock.now()).toISOString(),
      });
    }
    expect((await call(t, 'DELETE', '/api/metrics-token', undefined, viewer)).status).toBe(403);
    expect((await call(t, 'DELETE', '/api/metrics-token', undefined, admin)).status).toBe(200);
    expect((await scrape(bearer(second))).status).toBe(401);
    const settings = await call<SettingsResponse>(t, 'GET', '/api/settings', undefined, viewer);
    expect(settings.body.metrics_token).toEqual({ set: false, created_at: null });
    const rows = await sql<{ value: string }>(
      t,
      "SELECT value FROM installation_secrets WHERE key LIKE 'metrics%'",
    );
    expect(rows).toEqual([]);
  });

  it('stores only the hash of the token', async () => {
    const token = await createToken();
    const rows = await sql<{ value: string }>(
      t,
      "SELECT value FROM installation_secrets WHERE key LIKE 'metrics%'",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].value).not.toContain(token);
    expect(rows[0].value).toMatch(/^[0-9a-f]{64}$/);
  });

  describe('series', () => {
    let site: string;
    let api: { id: number };
    let shop: { id: number };
    let odd: { id: number };

    beforeAll(async () => {
      site = 'Berlin';
      expect((await call(t, 'POST', '/api/sites', { name: site, kind: 'local' }, admin)).status).toBe(201);
      api = await createSensor(t, admin, {
        name: 'api',
        type: 'http',
        target: 'http://127.0.0.1:9/secret-path',
        group: 'web',
        site,
        retries: 1,
      });
      shop = await createSensor(t, admin, { name: 'shop', type: 'tcp', target: '127.0.0.1:9', retries: 1 });
      odd = await createSensor(t, admin, {
        name: 'say "hi" \\ back',
        type: 'http',
        target: 'http://127.0.0.1:9/',
      });
    });

    const labels = (sensor: string, type: string, group = '', siteName = '') => ({
      sensor,
      type,
      group,
      site: siteName,
    });

    it('shows state, status one-hot, last duration and open incidents from memory; promtool accepts it', async () => {
      await feed(t, api.id, success(), clock.now());
      await feed(t, shop.id, failure(), clock.now());
      await flush(t);
      const { text } = await scrape(admin);
      const a = labels('api', 'http', 'web', site);
      const s = labels('shop', 'tcp');
      expect(valueOf(text, 'monitor_sensor_up', a)).toBe(1);
      expect(valueOf(text, 'monitor_sensor_up', s)).toBe(0);
      for (const status of ['up', 'warn', 'down', 'unknown', 'paused']) {
        expect(valueOf(text, 'monitor_sensor_status', { ...a, status })).toBe(status === 'up' ? 1 : 0);
        expect(valueOf(text, 'monitor_sensor_status', { ...s, status })).toBe(status === 'down' ? 1 : 0);
      }
      expect(valueOf(text, 'monitor_probe_duration_seconds', a)).toBe(0.008);
      expect(valueOf(text, 'monitor_open_incidents', a)).toBe(0);
      expect(valueOf(text, 'monitor_open_incidents', s)).toBe(1);
      expect(valueOf(text, 'monitor_sensor_up', labels('say "hi" \\ back', 'http'))).toBe(0);
      expect(text).not.toContain('secret-path');
      expectPromtoolAccepts(text);
    });

    it('serves uptime ratios from the rollups, computed in the background', async () => {
      const today = Date.parse('2026-11-21T00:00:00Z');
      // Yesterday 20 of 20 results up (daily), today's hours 3 of 4 (hourly), 100 days ago 0 of 10.
      await sql(
        t,
        `INSERT INTO rollup_daily (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
         VALUES (?, ?, 20, 20, 100, 1, 9), (?, ?, 10, 0, 50, 1, 9)`,
        [api.id, today - DAY, api.id, today - 100 * DAY],
      );
      await sql(
        t,
        `INSERT INTO rollup_hourly (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
         VALUES (?, ?, 4, 3, 20, 1, 9)`,
        [api.id, today + 10 * HOUR],
      );
      clock.advance(10 * 60_000);
      // Ratios older than the refresh interval: this scrape starts a recomputation.
      await scrape(admin);
      await t.app.get(MetricsService).uptimeSettled();
      const { text } = await scrape(admin);
      const a = labels('api', 'http', 'web', site);
      expect(valueOf(text, 'monitor_sensor_uptime_ratio', { ...a, window: '1d' })).toBe(0.75);
      expect(valueOf(text, 'monitor_sensor_uptime_ratio', { ...a, window: '30d' })).toBe(23 / 24);
      expect(valueOf(text, 'monitor_sensor_uptime_ratio', { ...a, window: '365d' })).toBe(23 / 34);
      // No results: no ratio rather than a made-up one.
      expect(valueOf(text, 'monitor_sensor_uptime_ratio', { ...labels('shop', 'tcp'), window: '1d' })).toBe(
        undefined,
      );
    });

    it('gives a new sensor its ratios in the first scrape that sees it, without recomputing the others', async () => {
      const late = await createSensor(t, admin, {
        name: 'late',
        type: 'http',
        target: 'http://127.0.0.1:9/',
      });
      const today = Date.parse('2026-11-21T00:00:00Z');
      await sql(
        t,
        `INSERT INTO rollup_hourly (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
         VALUES (?, ?, 10, 9, 20, 1, 9)`,
        [late.id, today + 11 * HOUR],
      );
      // The first scrape that sees the sensor has its ratios: a series missing from one scrape
      // vanishes from Prometheus for a scrape interval.
      const { text } = await scrape(admin);
      expect(valueOf(text, 'monitor_sensor_uptime_ratio', { ...labels('late', 'http'), window: '1d' })).toBe(
        0.9,
      );
      // The others' ratios stay as computed.
      const a = labels('api', 'http', 'web', site);
      expect(valueOf(text, 'monitor_sensor_uptime_ratio', { ...a, window: '1d' })).toBe(0.75);
    });

    it('counts final alert outcomes per channel', async () => {
      const receiver = await startHttpTarget(200);
      try {
        const channel = await call<{ id: number }>(
          t,
          'POST',
          '/api/channels',
          { name: 'ops hook', type: 'webhook', config: { url: receiver.url } },
          admin,
        );
        expect(channel.status).toBe(201);
        const alerted = await createSensor(t, admin, {
          name: 'alerted',
          type: 'http',
          target: 'http://127.0.0.1:9/',
          retries: 1,
          channels: [channel.body.id],
        });
        await feed(t, alerted.id, failure(), clock.now());
        await t.app.get(DeliveryService).idle();
        receiver.status = 500;
        clock.advance(60_000);
        await feed(t, alerted.id, success(), clock.now());
        await t.app.get(DeliveryService).idle();
        const { text } = await scrape(admin);
        expect(valueOf(text, 'monitor_alerts_total', { channel: 'ops hook', result: 'sent' })).toBe(1);
        expect(valueOf(text, 'monitor_alerts_total', { channel: 'ops hook', result: 'failed' })).toBe(1);
      } finally {
        await receiver.close();
      }
    });

    it('drops the series of a deleted sensor and shows a renamed one under its new name only', async () => {
      expect((await call(t, 'DELETE', `/api/sensors/${shop.id}`, undefined, admin)).status).toBe(200);
      const renamed = { name: 'even', type: 'http', target: 'http://127.0.0.1:9/' };
      expect((await call(t, 'PUT', `/api/sensors/${odd.id}`, renamed, admin)).status).toBe(200);
      const { text } = await scrape(admin);
      expect(text).not.toContain('sensor="shop"');
      expect(text).not.toContain('say ');
      expect(valueOf(text, 'monitor_sensor_up', labels('even', 'http'))).toBe(0);
    });

    it('keeps sensors of equal names apart: the later one is told by its id', async () => {
      const twin = await createSensor(t, admin, {
        name: 'api',
        type: 'http',
        target: 'http://127.0.0.1:9/',
        group: 'web',
        site,
      });
      const { text } = await scrape(admin);
      expect(valueOf(text, 'monitor_sensor_up', labels('api', 'http', 'web', site))).toBe(1);
      expect(valueOf(text, 'monitor_sensor_up', labels(`api #${twin.id}`, 'http', 'web', site))).toBe(0);
      expectPromtoolAccepts(text);
    });
  });
});

describeOnPostgres('instances share one PostgreSQL database')('the metrics token in a cluster', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startTestApp({ startScheduler: false });
    b = await startTestApp({ startScheduler: false, dataDir: a.dataDir });
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('works on every instance at once, and a rotation on one stops the old token on all', async () => {
    const admin = await setupAdmin(a);
    const make = async (t: TestApp, headers: Headers): Promise<string> => {
      const res = await call<{ metrics_token: string }>(t, 'POST', '/api/metrics-token', undefined, headers);
      expect(res.status).toBe(200);
      return res.body.metrics_token;
    };
    const scrape = async (t: TestApp, token: string) =>
      (await t.request('/metrics', { headers: { authorization: `Bearer ${token}` } })).status;
    const first = await make(a, admin);
    expect(await scrape(a, first)).toBe(200);
    expect(await scrape(b, first)).toBe(200);
    const second = await make(b, admin);
    expect(await scrape(a, first)).toBe(401);
    expect(await scrape(b, first)).toBe(401);
    expect(await scrape(a, second)).toBe(200);
    expect((await call(a, 'DELETE', '/api/metrics-token', undefined, admin)).status).toBe(200);
    expect(await scrape(b, second)).toBe(401);
  });
});

describe('the first scrape after a start', () => {
  const clock = new MutableClock(Date.parse('2026-11-21T12:30:00Z'));
  const apps: TestApp[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-metrics-'));
  afterAll(async () => {
    for (const app of apps.splice(0)) await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('already has the uptime ratios of every sensor with stored history', async () => {
    const first = await startTestApp({ startScheduler: false, clock, dataDir });
    apps.push(first);
    const admin = await setupAdmin(first);
    const names = ['one', 'two', 'three', 'never probed'];
    const ids: number[] = [];
    for (const name of names)
      ids.push((await createSensor(first, admin, { name, type: 'tcp', target: '127.0.0.1:9' })).id);
    const today = Date.parse('2026-11-21T00:00:00Z');
    for (const [i, id] of ids.slice(0, 3).entries())
      await sql(
        first,
        `INSERT INTO rollup_hourly (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
         VALUES (?, ?, 10, ?, 20, 1, 9)`,
        [id, today + 11 * HOUR, 10 - i],
      );
    const token = (
      await call<{ metrics_token: string }>(first, 'POST', '/api/metrics-token', undefined, admin)
    ).body.metrics_token;
    await first.close();
    apps.pop();

    const t = await startTestApp({ startScheduler: false, clock, dataDir });
    apps.push(t);
    const text = await (
      await t.request('/metrics', { headers: { authorization: `Bearer ${token}` } })
    ).text();
    const ratio = (sensor: string, window: string) =>
      valueOf(text, 'monitor_sensor_uptime_ratio', { sensor, type: 'tcp', group: '', site: '', window });
    expect(names.map((name) => ratio(name, '1d'))).toEqual([1, 0.9, 0.8, undefined]);
    expect(names.map((name) => ratio(name, '30d'))).toEqual([1, 0.9, 0.8, undefined]);
  });
});
