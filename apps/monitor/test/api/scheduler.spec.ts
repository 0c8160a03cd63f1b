import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import type { ScheduleQueue } from '@monitor/domain';
import { ResultWriter } from '../../src/history/result-writer.service';
import { SchedulerService } from '../../src/scheduler/scheduler.service';
import { SensorRuntimeService } from '../../src/scheduler/sensor-runtime.service';
import { call, Headers, setupAdmin } from './support/http';
import { boolOf, createSensor, flush, Sensor, sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';
import { databaseUrlFor, testBackend } from '../support/test-database';

/**
 * The scheduler in real time against real HTTP targets on 127.0.0.1: when probes start, that a slow
 * probe delays nobody, that API changes restart only the loops they concern, fixed-rate jitter,
 * and that results reach the database in batches (and on shutdown).
 */
jest.setTimeout(60_000);

const now = (): number => performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const until = now() + timeoutMs;
  while (!check()) {
    if (now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

const gapsOf = (times: number[]): number[] => times.slice(1).map((at, i) => at - times[i]);

/** An HTTP server that answers 200 at once and records when each request arrived, per path. */
interface RecordingTarget {
  base: string;
  arrivals(path: string): number[];
  close(): Promise<void>;
}

async function startRecordingTarget(): Promise<RecordingTarget> {
  const arrivals = new Map<string, number[]>();
  const server = http.createServer((request, response) => {
    const at = now();
    const key = request.url ?? '/';
    let list = arrivals.get(key);
    if (!list) arrivals.set(key, (list = []));
    list.push(at);
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    arrivals: (p) => [...(arrivals.get(p) ?? [])],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A TCP server that accepts and never answers; records when each connection opened and closed. */
interface HangingTarget {
  url: string;
  connections: { opened: number; closed: number | null }[];
  close(): Promise<void>;
}

async function startHangingTarget(): Promise<HangingTarget> {
  const connections: HangingTarget['connections'] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const connection = { opened: now(), closed: null as number | null };
    connections.push(connection);
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      connection.closed = now();
      sockets.delete(socket);
    });
    socket.resume(); // read the request, never write a byte
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hang`,
    connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const httpSensor = (
  name: string,
  target: string,
  interval: number,
  options: Record<string, unknown> = {},
) => ({
  name,
  type: 'http',
  target,
  interval,
  options,
});

async function countResults(t: TestApp, sensorId?: number): Promise<number> {
  const [row] =
    sensorId === undefined
      ? await sql<{ n: number }>(t, 'SELECT count(*) AS n FROM probe_results')
      : await sql<{ n: number }>(t, 'SELECT count(*) AS n FROM probe_results WHERE sensor_id = ?', [
          sensorId,
        ]);
  return row.n;
}

describe('scheduler: nothing runs before it starts', () => {
  let t: TestApp;
  let admin: Headers;
  let target: RecordingTarget;

  beforeAll(async () => {
    target = await startRecordingTarget();
    t = await startTestApp({ startScheduler: false });
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    await t?.close();
    await target?.close();
  });

  it('created sensors get runtime state at once, but no probe runs until start()', async () => {
    const scheduler = t.app.get(SchedulerService);
    const runtime = t.app.get(SensorRuntimeService);
    expect(scheduler.isStarted).toBe(false);

    const a = await createSensor(t, admin, httpSensor('early a', `${target.base}/early-a`, 1));
    const b = await createSensor(t, admin, httpSensor('early b', `${target.base}/early-b`, 1));
    for (const sensor of [a, b]) {
      expect(sensor.status).toBe('unknown');
      expect(runtime.get(sensor.id)).toMatchObject({
        definition: { id: sensor.id, name: sensor.name, interval: 1, enabled: true },
        state: { status: 'unknown' },
        lastResult: null,
      });
    }

    await sleep(2500);
    expect(target.arrivals('/early-a')).toEqual([]);
    expect(target.arrivals('/early-b')).toEqual([]);
    expect(await countResults(t)).toBe(0);

    const started = now();
    scheduler.start();
    expect(scheduler.isStarted).toBe(true);
    await waitFor(
      () => target.arrivals('/early-a').length > 0 && target.arrivals('/early-b').length > 0,
      3000,
      'the first probes after start()',
    );
    // The first run of each falls within its first interval (random offset in [0, 1 s)).
    for (const p of ['/early-a', '/early-b']) expect(target.arrivals(p)[0] - started).toBeLessThan(1500);
  });
});

describe('scheduler: a slow probe delays nobody and never outlives its time-out', () => {
  let t: TestApp;
  let admin: Headers;
  let fast: RecordingTarget;
  let hanging: HangingTarget;

  beforeAll(async () => {
    fast = await startRecordingTarget();
    hanging = await startHangingTarget();
    t = await startTestApp();
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    await t?.close();
    await fast?.close();
    await hanging?.close();
  });

  it('a sensor whose target hangs times out after 1 s while a 1 s sensor keeps its rate', async () => {
    const slow = await createSensor(t, admin, httpSensor('slow', hanging.url, 2, { timeout: 1 }));
    await createSensor(t, admin, httpSensor('fast', `${fast.base}/fast`, 1));
    await sleep(5500);

    const arrivals = fast.arrivals('/fast');
    expect(arrivals.length).toBeGreaterThanOrEqual(4);
    const gaps = gapsOf(arrivals);
    expect(gaps.filter((gap) => gap >= 1500)).toEqual([]);

    await flush(t);
    const rows = await sql<{ message: string }>(t, 'SELECT message FROM probe_results WHERE sensor_id = ?', [
      slow.id,
    ]);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect([...new Set(rows.map((r) => r.message))]).toEqual(['timed out after 1 s']);

    // Every connection the slow probe opened was closed by the prober within its time-out (+ slack).
    const at = now();
    expect(hanging.connections.length).toBeGreaterThanOrEqual(2);
    const lifetimes = hanging.connections.map((c) => Math.round((c.closed ?? at) - c.opened));
    expect(lifetimes.filter((ms) => ms >= 2000)).toEqual([]);
    expect(hanging.connections.filter((c) => c.closed !== null).length).toBeGreaterThanOrEqual(rows.length);
  });
});

interface SchedulerInternals {
  queue: ScheduleQueue;
  place(definition: { id: number; name: string }, initial: boolean): void;
}

describe('scheduler: reconcile restarts only the loop that changed', () => {
  let t: TestApp;
  let admin: Headers;
  let target: RecordingTarget;

  beforeAll(async () => {
    target = await startRecordingTarget();
    t = await startTestApp();
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
    await target?.close();
  });

  it('name and group apply in place; interval reschedules once; pause, resume and delete stop and start it', async () => {
    const a = await createSensor(t, admin, httpSensor('a', `${target.base}/a`, 2));
    const b = await createSensor(t, admin, httpSensor('b', `${target.base}/b`, 1));
    await waitFor(
      () => target.arrivals('/a').length > 0 && target.arrivals('/b').length > 0,
      3500,
      'both loops to run',
    );

    const internals = t.app.get(SchedulerService) as unknown as SchedulerInternals;
    const queue = internals.queue;
    const schedule = jest.spyOn(queue, 'schedule');
    // Runs that fire also call schedule (their next due time): count only the calls made while
    // reconcile places a sensor.
    const original = internals.place.bind(internals);
    const fromReconcile: number[] = [];
    const place = jest.spyOn(internals, 'place').mockImplementation((definition, initial) => {
      const before = schedule.mock.calls.length;
      original(definition, initial);
      for (const [id] of schedule.mock.calls.slice(before)) fromReconcile.push(id);
    });
    const put = (body: Record<string, unknown>) =>
      call<Sensor>(t, 'PUT', `/api/sensors/${a.id}`, body, admin);
    const patch = (enabled: boolean) => call<Sensor>(t, 'PATCH', `/api/sensors/${a.id}`, { enabled }, admin);

    // Name, then group: reconciled, but the loop is left alone.
    expect((await put({ name: 'a renamed' })).status).toBe(200);
    expect(place).toHaveBeenLastCalledWith(expect.objectContaining({ id: a.id, name: 'a renamed' }), false);
    expect((await put({ group: 'edge' })).status).toBe(200);
    expect(place).toHaveBeenLastCalledWith(expect.objectContaining({ id: a.id, group: 'edge' }), false);
    expect(fromReconcile).toEqual([]);
    expect(queue.has(a.id)).toBe(true);

    // Interval: exactly one reschedule, for this sensor only.
    expect((await put({ interval: 1 })).status).toBe(200);
    expect(fromReconcile).toEqual([a.id]);
    expect(queue.has(a.id)).toBe(true);
    expect(queue.has(b.id)).toBe(true);
    const afterInterval = target.arrivals('/a').length;
    await waitFor(() => target.arrivals('/a').length > afterInterval, 2500, 'a run at the new interval');
    fromReconcile.length = 0;

    // Pause: the loop stops.
    expect((await patch(false)).status).toBe(200);
    expect(queue.has(a.id)).toBe(false);
    await sleep(250); // a run that had already begun may still land
    const paused = target.arrivals('/a').length;
    await sleep(1500);
    expect(target.arrivals('/a').length).toBe(paused);
    expect(fromReconcile).toEqual([]);

    // Resume: it runs again, within one interval.
    const resumedAt = now();
    expect((await patch(true)).status).toBe(200);
    expect(queue.has(a.id)).toBe(true);
    expect(fromReconcile).toEqual([a.id]);
    await waitFor(() => target.arrivals('/a').some((at) => at > resumedAt), 2500, 'a run after resume');
    fromReconcile.length = 0;

    // Delete: stopped for good; the other sensor carries on.
    expect((await call(t, 'DELETE', `/api/sensors/${a.id}`, undefined, admin)).status).toBe(200);
    expect(queue.has(a.id)).toBe(false);
    expect(t.app.get(SensorRuntimeService).get(a.id)).toBeUndefined();
    await sleep(250);
    const deleted = target.arrivals('/a').length;
    const bBefore = target.arrivals('/b').length;
    await sleep(1500);
    expect(target.arrivals('/a').length).toBe(deleted);
    expect(target.arrivals('/b').length).toBeGreaterThan(bBefore);
    expect(fromReconcile).toEqual([]);
    expect(queue.has(b.id)).toBe(true);
  });
});

describe('scheduler: fixed rate from a random start', () => {
  let t: TestApp;
  let admin: Headers;
  let target: RecordingTarget;

  beforeAll(async () => {
    target = await startRecordingTarget();
    t = await startTestApp();
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    await t?.close();
    await target?.close();
  });

  it('10 sensors at 2 s do not fire together, and each keeps a 2 s rate', async () => {
    const created: { path: string; at: number }[] = [];
    for (let i = 0; i < 10; i++) {
      const p = `/jitter-${i}`;
      const at = now();
      await createSensor(t, admin, httpSensor(`jitter ${i}`, `${target.base}${p}`, 2));
      created.push({ path: p, at });
    }
    await waitFor(
      () => created.every(({ path: p }) => target.arrivals(p).length >= 4),
      10_000,
      'four runs of every sensor',
    );

    const firsts = created.map(({ path: p }) => target.arrivals(p)[0]);
    expect(Math.max(...firsts) - Math.min(...firsts)).toBeGreaterThan(50);
    // Measured from each sensor's own creation, so the time spent creating them does not count.
    const offsets = created.map(({ path: p, at }) => target.arrivals(p)[0] - at);
    expect(Math.max(...offsets) - Math.min(...offsets)).toBeGreaterThan(50);
    expect(offsets.filter((ms) => ms < 0 || ms > 2500)).toEqual([]);

    for (const { path: p } of created) {
      const runs = target.arrivals(p);
      const mean = (runs[runs.length - 1] - runs[0]) / (runs.length - 1);
      expect({ path: p, mean: Math.round(mean), inRange: mean >= 1800 && mean <= 2200 }).toMatchObject({
        inRange: true,
      });
    }
  });
});

describe('result writer: results completing together share one transaction (group commit)', () => {
  let t: TestApp;
  let admin: Headers;

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false });
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('30 results of 10 sensors completing at once are written in one or two transactions, then announced', async () => {
    const writer = t.app.get(ResultWriter) as unknown as { writeBatch: (...args: unknown[]) => unknown };
    const original = writer.writeBatch;
    let batches = 0;
    writer.writeBatch = (...args: unknown[]) => {
      batches++;
      return original.apply(writer, args);
    };
    try {
      const ids: number[] = [];
      for (let i = 0; i < 10; i++)
        ids.push((await createSensor(t, admin, httpSensor(`batch ${i}`, 'http://127.0.0.1:9/', 1))).id);
      const runtime = t.app.get(SensorRuntimeService);
      const at = Date.now();
      const submitted = await Promise.all(
        ids.flatMap((id) =>
          [0, 1, 2].map((n) => runtime.submit(id, { success: true, message: 'ok', latencyMs: 1 }, at + n)),
        ),
      );
      expect(batches).toBe(0);
      const announced = await Promise.all(submitted.map((s) => s.announced));
      expect(announced.every((r) => r !== null)).toBe(true);
      expect(await countResults(t)).toBe(30);
      expect(batches).toBeGreaterThanOrEqual(1);
      expect(batches).toBeLessThanOrEqual(2);
    } finally {
      writer.writeBatch = original;
    }
  });
});

/** Rows of a closed app's database (its data directory's file, or the PostgreSQL database standing in for it). */
async function storedAfterClose<T>(dataDir: string, query: string, params: unknown[]): Promise<T[]> {
  if (testBackend() === 'postgres') {
    const client = new Client({ connectionString: databaseUrlFor(dataDir) });
    await client.connect();
    try {
      let n = 0;
      return (
        await client.query(
          query.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as T[];
    } finally {
      await client.end();
    }
  }
  const db = new Database(path.join(dataDir, 'monitor.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(query).all(...params) as T[];
  } finally {
    db.close();
  }
}

describe('result writer: shutdown writes what is queued', () => {
  let dataDir: string;
  let target: RecordingTarget;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-scheduler-'));
    target = await startRecordingTarget();
  });

  afterAll(async () => {
    await target?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('results still queued at close are in the database afterwards, and a restart rebuilds from them', async () => {
    const t = await startTestApp({ dataDir });
    let sensor: Sensor;
    let queued: number[];
    try {
      const admin = await setupAdmin(t);
      sensor = await createSensor(t, admin, httpSensor('shutdown', `${target.base}/shutdown`, 1));
      const writer = t.app.get(ResultWriter) as unknown as { results: { sensorId: number; ts: number }[] };
      await waitFor(() => writer.results.length >= 1, 4000, 'a queued result');
      queued = writer.results.map((r) => r.ts);
    } finally {
      await t.close();
    }

    const stored = (
      await storedAfterClose<{ message: string; ts: number | string }>(
        dataDir,
        'SELECT message, ts FROM probe_results WHERE sensor_id = ? ORDER BY ts',
        [sensor.id],
      )
    ).map((r) => ({ ...r, ts: Number(r.ts) })); // a bigint from pg may arrive as a string
    expect(stored.map((r) => r.ts)).toEqual(expect.arrayContaining(queued));
    expect([...new Set(stored.map((r) => r.message))]).toEqual(['HTTP 200']);

    // The next start (scheduler held back) rebuilds the sensor's state from those rows.
    const before = target.arrivals('/shutdown').length;
    const again = await startTestApp({ dataDir, startScheduler: false });
    try {
      expect(again.app.get(SensorRuntimeService).get(sensor.id)).toMatchObject({
        definition: { id: sensor.id, interval: 1 },
        lastResult: { message: 'HTTP 200', ts: new Date(stored[stored.length - 1].ts).toISOString() },
      });
      await sleep(1200);
      expect(target.arrivals('/shutdown').length).toBe(before);
    } finally {
      await again.close();
    }
  });
});

/**
 * The writer's last flush runs after the HTTP server has drained and the scheduler has stopped,
 * just before the database closes: a pause served during shutdown is kept, and no flush timer is
 * left behind to keep the process alive.
 */
describe('result writer: writes queued while the app closes', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-shutdown-'));
  });

  afterAll(() => {
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps a pause served during shutdown and leaves no flush timer running', async () => {
    const t = await startTestApp({ dataDir, startScheduler: false });
    const writer = t.app.get(ResultWriter) as unknown as { timer?: NodeJS.Timeout };
    const scheduler = t.app.get(SchedulerService);
    let id = 0;
    let during = 0;
    try {
      const admin = await setupAdmin(t);
      id = (await createSensor(t, admin, httpSensor('closing', 'http://127.0.0.1:9/', 60))).id;
      const stop = scheduler.beforeApplicationShutdown.bind(scheduler);
      // A request that arrives while the app is shutting down (the server has not stopped listening).
      jest.spyOn(scheduler, 'beforeApplicationShutdown').mockImplementation(async () => {
        during = (await call(t, 'PATCH', `/api/sensors/${id}`, { enabled: false }, admin)).status;
        await stop();
      });
    } finally {
      await t.close();
    }
    const pendingTimer = writer.timer !== undefined;
    if (writer.timer) clearTimeout(writer.timer); // do not leave it failing every 5 s in this process
    writer.timer = undefined;

    const [row] = await storedAfterClose<{ enabled: unknown; status: string }>(
      dataDir,
      'SELECT enabled, status FROM sensors WHERE id = ?',
      [id],
    );
    expect(during).toBe(200);
    expect({ ...row, enabled: boolOf(row.enabled), pendingTimer }).toEqual({
      enabled: false,
      status: 'paused',
      pendingTimer: false,
    });
  });
});
