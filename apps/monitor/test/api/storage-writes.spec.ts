import * as fs from 'node:fs';
import type { SessionInfo } from '@monitor/contracts';
import { HistoryRepository } from '../../src/history/history.repository';
import { FLUSH_SIZE, ResultWriter } from '../../src/history/result-writer.service';
import { SensorsRepository } from '../../src/sensors/sensors.repository';
import { accountWithRole, apiKeyHeaders, call, setupAdmin, type Headers } from './support/http';
import { createSensor, sql } from './support/sensors';
import { startTestApp, type TestApp } from './support/test-app';
import { testBackend } from '../support/test-database';
import { tempDir } from '../support/server-process';
import { readStoredRows } from './support/concurrency';

/*
 * Runs on both backends (the api and api-pg projects): the result batch and the `atomically`
 * writers are where the two differ most (one synchronous transaction on SQLite; multi-row
 * statements and an advisory lock across pooled connections on PostgreSQL).
 */

jest.setTimeout(60_000);

/** Results name their prober on PostgreSQL only (issue 16). */
const INSTANCE = 'batch-writer';
const PROBER = testBackend() === 'postgres' ? INSTANCE : '';

describe('storage: the result batch', () => {
  let t: TestApp;
  let admin: Headers;

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false, env: { MONITOR_INSTANCE_NAME: INSTANCE } });
    admin = await setupAdmin(t);
  });
  afterAll(() => t.close());

  it('two flushes of many results store every result exactly once, with the latest runtime columns', async () => {
    const a = await createSensor(t, admin, { name: 'batch a', type: 'http', target: 'http://127.0.0.1:9/' });
    const b = await createSensor(t, admin, { name: 'batch b', type: 'http', target: 'http://127.0.0.1:9/' });
    const writer = t.app.get(ResultWriter);
    const start = Date.UTC(2026, 0, 1);
    const per = FLUSH_SIZE + 700;
    const runtime = (i: number) => ({
      status: 'up' as const,
      message: `check ${i}`,
      lastCheckedAt: start + i,
      latencyMs: i + 0.5,
      streak: i,
      statusChangedAt: null,
      lastAlertAt: null,
    });
    // The first round passes FLUSH_SIZE, so a flush starts while results still arrive.
    for (let i = 0; i < per; i++) {
      writer.enqueue(
        { sensorId: a.id, ts: start + i, success: i % 3 !== 0, statusCode: 200, latencyMs: 1, message: 'a' },
        runtime(i),
      );
      writer.enqueue({
        sensorId: b.id,
        ts: start + i,
        success: true,
        statusCode: null,
        latencyMs: null,
        message: "b's",
      });
    }
    await writer.flushed();
    // The second round: the same millisecond twice moves the later result on by one.
    for (let i = per; i < 2 * per; i++) {
      writer.enqueue(
        { sensorId: a.id, ts: start + i, success: true, statusCode: 200, latencyMs: 2, message: 'a' },
        runtime(i),
      );
      writer.enqueue({
        sensorId: b.id,
        ts: start + per - 1,
        success: false,
        statusCode: 503,
        latencyMs: null,
        message: 'b',
      });
    }
    await writer.flushed();
    await writer.flushed();

    const history = t.app.get(HistoryRepository);
    expect(await history.countRows(a.id, 0, Number.MAX_SAFE_INTEGER)).toBe(2 * per);
    expect(await history.countRows(b.id, 0, Number.MAX_SAFE_INTEGER)).toBe(2 * per);
    expect(await history.resultSpan(a.id)).toEqual({ first: start, last: start + 2 * per - 1 });
    expect(await history.resultSpan(b.id)).toEqual({ first: start, last: start + 2 * per - 1 });
    const newestOfB = await history.recentResults(b.id, 1);
    expect(newestOfB).toEqual([
      {
        ts: start + 2 * per - 1,
        success: 0,
        status_code: 503,
        latency_ms: null,
        message: 'b',
        instance: PROBER,
      },
    ]);
    const probers = await sql<{ instance: string; n: number }>(
      t,
      'SELECT instance, count(*) AS n FROM probe_results WHERE sensor_id IN (?, ?) GROUP BY instance',
      [a.id, b.id],
    );
    expect(probers.map((p) => ({ instance: p.instance, n: Number(p.n) }))).toEqual([
      { instance: PROBER, n: 4 * per },
    ]);
    const stored = (await t.app.get(SensorsRepository).one(a.id))!.sensor;
    expect(stored).toMatchObject({
      message: `check ${2 * per - 1}`,
      lastCheckedAt: start + 2 * per - 1,
      latencyMs: 2 * per - 1 + 0.5,
      streak: 2 * per - 1,
    });
  });

  it('a result of a sensor deleted while it waited is skipped, the others are stored', async () => {
    const kept = await createSensor(t, admin, { name: 'kept', type: 'http', target: 'http://127.0.0.1:9/' });
    const gone = await createSensor(t, admin, { name: 'gone', type: 'http', target: 'http://127.0.0.1:9/' });
    const writer = t.app.get(ResultWriter);
    const at = Date.UTC(2026, 1, 1);
    const result = { ts: at, success: true, statusCode: 200, latencyMs: 3, message: '' };
    writer.enqueue({ sensorId: kept.id, ...result });
    writer.enqueue({ sensorId: gone.id, ...result });
    await t.app.get(SensorsRepository).delete(gone.id);
    await writer.flushed();
    const history = t.app.get(HistoryRepository);
    expect(await history.countRows(kept.id, 0, Number.MAX_SAFE_INTEGER)).toBe(1);
    expect(await history.countRows(gone.id, 0, Number.MAX_SAFE_INTEGER)).toBe(0);
  });
});

describe('storage: the sensors’ runtime columns', () => {
  it('are kept back while only the last check moves, and written at a clean stop', async () => {
    const dataDir = tempDir('monitor-columns-');
    const t = await startTestApp({ startScheduler: false, dataDir });
    try {
      const admin = await setupAdmin(t);
      const { id } = await createSensor(t, admin, {
        name: 'cols',
        type: 'http',
        target: 'http://127.0.0.1:9/',
      });
      const writer = t.app.get(ResultWriter);
      const at = Date.UTC(2026, 2, 1);
      const columns = (i: number) => ({
        status: 'up',
        message: `check ${i}`,
        lastCheckedAt: at + i,
        latencyMs: i,
        streak: 0,
        statusChangedAt: null,
        lastAlertAt: null,
      });
      const result = (i: number) => ({
        sensorId: id,
        ts: at + i,
        success: true,
        statusCode: 200,
        latencyMs: i,
        message: `check ${i}`,
      });
      writer.enqueue(result(0), columns(0));
      await writer.flushed();
      writer.enqueue(result(1), columns(1));
      await writer.flushed();
      const row = async () =>
        (
          await sql<{ message: string; last_checked_at: number }>(
            t,
            'SELECT message, last_checked_at FROM sensors WHERE id = ?',
            [id],
          )
        )[0];
      expect(await row()).toMatchObject({ message: 'check 0' });
      writer.enqueue(result(2), { ...columns(2), status: 'warn', streak: 1 });
      await writer.flushed();
      expect(await row()).toMatchObject({ message: 'check 2' });
      writer.enqueue(result(3), { ...columns(3), status: 'warn', streak: 1 });
      await writer.flushed();
      expect(await row()).toMatchObject({ message: 'check 2' });
    } finally {
      await t.close();
    }
    const [stored] = await readStoredRows<{ message: string; last_checked_at: number; n: number }>(
      dataDir,
      'SELECT message, last_checked_at, (SELECT count(*) FROM probe_results) AS n FROM sensors',
    );
    expect({ ...stored, last_checked_at: Number(stored.last_checked_at), n: Number(stored.n) }).toEqual({
      message: 'check 3',
      last_checked_at: Date.UTC(2026, 2, 1) + 3,
      n: 4,
    });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});

describe('storage: atomically serialises check-then-write rules', () => {
  it('of two concurrent demotions of the last two administrators, one succeeds and one is a 409', async () => {
    const t = await startTestApp({ startScheduler: false });
    try {
      const admin = await setupAdmin(t);
      const me = (await call<SessionInfo>(t, 'GET', '/api/session', undefined, admin)).body.user!.id;
      const headers = await apiKeyHeaders(t, admin);
      for (let round = 0; round < 8; round++) {
        const other = await accountWithRole(t, headers, `second_admin_${round}`, 'admin');
        const answers = await Promise.all(
          [me, other.id].map((id) => call(t, 'PUT', `/api/users/${id}`, { role: 'viewer' }, headers)),
        );
        const statuses = answers.map((a) => a.status).sort();
        expect(statuses).toEqual([200, 409]);
        expect(answers.find((a) => a.status === 409)!.body).toEqual({
          error: 'the last active administrator cannot be demoted',
        });
        const users = await call<{ users: { id: number; role: string; disabled: boolean }[] }>(
          t,
          'GET',
          '/api/users',
          undefined,
          headers,
        );
        const admins = users.body.users.filter((u) => u.role === 'admin' && !u.disabled);
        expect(admins).toHaveLength(1);
        // Back to one administrator (me) for the next round.
        if (admins[0].id !== me) {
          await call(t, 'PUT', `/api/users/${me}`, { role: 'admin' }, headers);
          await call(t, 'PUT', `/api/users/${other.id}`, { role: 'viewer' }, headers);
        }
      }
    } finally {
      await t.close();
    }
  });
});
