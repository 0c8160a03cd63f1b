import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { newPushToken } from '@monitor/probes';
import { SchedulerService } from '../../src/scheduler/scheduler.service';
import { SensorRuntimeService } from '../../src/scheduler/sensor-runtime.service';
import { describeOnPostgres } from '../support/test-database';
import { MutableClock } from './support/clock';
import { call, sessionCookieOf, setupAdmin } from './support/http';
import { push, results, startWatching, until } from './support/push';
import { createSensor, flush, getSensor, record, schedulerTick, sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Push sensors over their lifetime: a restart raises no false alarm, the configuration file and a
 * backup keep their tokens, and on a cluster a push is recorded once, by the sensor's owner.
 */
jest.setTimeout(60_000);

const SECOND = 1000;

describe('a push sensor across a restart', () => {
  it('raises no false alarm: the wait starts over at start, the token still works', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-push-'));
    const clock = new MutableClock();
    let t = await startTestApp({ startScheduler: false, clock, dataDir });
    let token: string;
    let id: number;
    try {
      const admin = await setupAdmin(t);
      const created = await createSensor(t, admin, {
        name: 'restarted job',
        type: 'push',
        target: '',
        interval: 60,
        retries: 1,
      });
      ({ id } = created);
      token = created.options.token as string;
      startWatching(t);
      expect((await push(t, token, '?msg=before')).status).toBe(200);
      await flush(t);
    } finally {
      await t.close();
    }
    // Stopped for an hour: no pusher could reach it, so that is no missed push.
    clock.advance(3600 * SECOND);
    t = await startTestApp({ startScheduler: false, clock, dataDir });
    try {
      const alerts = record(t, 'alert');
      startWatching(t);
      const admin = (
        await call(t, 'POST', '/api/login', { username: 'admin', password: 'correct horse battery' })
      ).response.headers
        .getSetCookie()[0]
        .split(';')[0];
      const headers = { cookie: admin };
      await schedulerTick(t);
      clock.advance(59 * SECOND);
      await schedulerTick(t);
      let shown = await getSensor(t, headers, id);
      expect([shown.status, shown.message]).toEqual(['up', 'before']);
      expect((await push(t, token, '?msg=after')).status).toBe(200);
      clock.advance(60 * SECOND);
      await schedulerTick(t);
      shown = await getSensor(t, headers, id);
      expect([shown.status, shown.message]).toEqual(['down', 'no push received for 1m']);
      expect(alerts.events.map((a) => a.kind)).toEqual(['down']);
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describeOnPostgres('instances share one PostgreSQL database')('a push on a cluster', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startTestApp({
      startScheduler: false,
      file: { instance_name: 'push-a', cluster: { dead_after: '5s' } },
    });
    b = await startTestApp({
      startScheduler: false,
      dataDir: a.dataDir,
      file: { instance_name: 'push-b', cluster: { dead_after: '5s' } },
    });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('is recorded once, by the instance that probes the sensor, whichever instance it reaches', async () => {
    const admin = await setupAdmin(a);
    const schedulers = [a, b].map((t) => t.app.get(SchedulerService));
    // Both instances know each other: each sensor has one owner among the two.
    await until(() =>
      schedulers.every(
        (s) => (s as unknown as { membership: { members: string[] } }).membership.members.length === 2,
      ),
    );
    // Made-up tokens first: b must still learn the tokens a creates afterwards.
    for (let i = 0; i < 50; i++) expect((await push(b, newPushToken(), '?msg=x')).status).toBe(404);
    const created: { id: number; token: string }[] = [];
    for (const name of ['p1', 'p2', 'p3', 'p4']) {
      const sensor = await createSensor(a, admin, { name, type: 'push', target: '', interval: 600 });
      created.push({ id: sensor.id, token: sensor.options.token as string });
    }
    await until(() => created.every(({ id }) => b.app.get(SensorRuntimeService).get(id) !== undefined));
    const foreign = created.find(({ id }) => !schedulers[1].owns(id));
    if (!foreign) throw new Error('instance a owns none of four sensors');
    // Pushed to b, which does not probe it.
    const res = await push(b, foreign.token, '?msg=via%20b');
    expect(res.status).toBe(200);
    await until(() => a.app.get(SensorRuntimeService).get(foreign.id)?.message === 'via b');
    await flush(a);
    await flush(b);
    const rows = await sql<{ message: string }>(a, 'SELECT message FROM probe_results WHERE sensor_id = ?', [
      foreign.id,
    ]);
    expect(rows.map((r) => r.message)).toEqual(['via b']);
    expect((await getSensor(a, admin, foreign.id)).status).toBe('up');
    // Stored by the owner, not by the instance the push reached.
    expect((await results(a, admin, foreign.id)).map((r) => [r.message, r.instance])).toEqual([
      ['via b', 'push-a'],
    ]);
  });
});

describe('push sensors declared in the configuration file', () => {
  const OWN = 'E'.repeat(32);
  const file = {
    sensors: [
      { name: 'declared job', type: 'push', interval: 60 },
      { name: 'own token', type: 'push', target: '', interval: 60, options: { token: OWN } },
    ],
  };
  const tokens = async (t: TestApp): Promise<Record<string, unknown>> => {
    const rows = await sql<{ name: string; options: string }>(
      t,
      'SELECT name, options FROM sensors ORDER BY name',
    );
    return Object.fromEntries(
      rows.map((r) => [r.name, (JSON.parse(r.options) as { token?: unknown }).token]),
    );
  };

  it('take their own token or get one that later starts keep; the API cannot rotate them', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-push-config-'));
    let t = await startTestApp({ startScheduler: false, dataDir, file });
    let first: Record<string, unknown>;
    try {
      first = await tokens(t);
      expect(first['own token']).toBe(OWN);
      expect(first['declared job']).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect((await push(t, OWN)).status).toBe(200);
      const admin = await setupAdmin(t);
      const id = (await sql<{ id: number }>(t, "SELECT id FROM sensors WHERE name = 'declared job'"))[0].id;
      const rotate = await call(t, 'POST', `/api/sensors/${id}/push-token`, undefined, admin);
      expect(rotate.status).toBe(409);
    } finally {
      await t.close();
    }
    t = await startTestApp({ startScheduler: false, dataDir, file });
    try {
      expect(await tokens(t)).toEqual(first);
      expect((await push(t, first['declared job'] as string)).status).toBe(200);
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuse a token that is too short, naming it', async () => {
    const bad = { sensors: [{ name: 'weak', type: 'push', interval: 60, options: { token: 'short' } }] };
    await expect(startTestApp({ startScheduler: false, file: bad })).rejects.toThrow(
      /sensors "weak": options\.token must be 22 to 128 characters/,
    );
  });
});

describe('push sensors in a backup', () => {
  it('carry their token in clear, and a restore keeps it working', async () => {
    const source = await startTestApp({ startScheduler: false });
    let token: string;
    let text: string;
    try {
      const admin = await setupAdmin(source);
      const created = await createSensor(source, admin, {
        name: 'backed up',
        type: 'push',
        target: '',
        interval: 60,
      });
      token = created.options.token as string;
      const backup = await fetch(`${source.url}/api/backup`, { headers: admin });
      expect(backup.status).toBe(200);
      text = await backup.text();
      expect(text).toContain(token);
    } finally {
      await source.close();
    }
    const target = await startTestApp({ startScheduler: false });
    try {
      let admin = await setupAdmin(target);
      for (let i = 0; i < 2; i++) {
        const restored = await fetch(`${target.url}/api/restore`, {
          method: 'POST',
          headers: { ...admin, 'content-type': 'application/json' },
          body: text,
        });
        expect(restored.status).toBe(200);
        // The restore ended the restored accounts' sessions; this caller carries on with its fresh one.
        admin = { cookie: sessionCookieOf(restored) as string };
        expect((await push(target, token, '?msg=restored')).status).toBe(200);
      }
    } finally {
      await target.close();
    }
  });
});
