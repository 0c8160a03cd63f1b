import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { StorageHealth } from '../../src/core/database/storage-health';
import { ResultWriter } from '../../src/history/result-writer.service';
import { ADMIN, call, Headers, setupAdmin, signIn } from './support/http';
import { createSensor, flush, HttpTarget, Sensor, sql, startHttpTarget } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';
import { fillFileSystem as fill } from '../support/full-disk';

jest.setTimeout(240_000);

const itAsRoot = process.getuid?.() === 0 ? it : it.skip;

async function waitFor(what: string, done: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a full disk', () => {
  let mountPoint: string;
  let mounted = false;
  const apps: TestApp[] = [];
  let target: HttpTarget | undefined;

  beforeAll(() => {
    mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-full-'));
    if (process.getuid?.() !== 0) return;
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint]);
    mounted = true;
  });

  afterAll(async () => {
    try {
      for (const app of apps.splice(0)) await app.close().catch(() => undefined);
      await target?.close();
    } finally {
      if (mounted) execFileSync('umount', ['-l', mountPoint]);
      fs.rmSync(mountPoint, { recursive: true, force: true });
    }
  });

  const start = async (dataDir: string): Promise<TestApp> => {
    const app = await startTestApp({ dataDir });
    apps.push(app);
    return app;
  };

  const storedResults = async (t: TestApp, sensorId: number, from: number, to: number): Promise<number> =>
    (
      await sql<{ n: number }>(
        t,
        'SELECT count(*) AS n FROM probe_results WHERE sensor_id = ? AND ts BETWEEN ? AND ?',
        [sensorId, from, to],
      )
    )[0].n;

  itAsRoot(
    'refuses writes with 507, reports it on /healthz, keeps results and writes them once space returns (needs root: mounts a 16 MiB tmpfs)',
    async () => {
      const dataDir = path.join(mountPoint, 'data');
      const filler = path.join(mountPoint, 'filler');
      let t = await start(dataDir);
      let admin: Headers = await setupAdmin(t);
      target = await startHttpTarget(200);
      const probed = await createSensor(t, admin, {
        name: 'probed',
        type: 'http',
        target: target.url,
        interval: 1,
      });
      const writer = t.app.get(ResultWriter);
      const health = t.app.get(StorageHealth);
      await waitFor('a first result', () => writer.oldestPending() < Infinity);
      await flush(t);

      fill(filler);
      const fullSince = Date.now();

      // Several writes while full: after the first, TypeORM used to lose track of its transaction.
      for (const name of ['while full 1', 'while full 2', 'while full 3']) {
        const refused = await call<{ error: string }>(
          t,
          'POST',
          '/api/sensors',
          { name, type: 'http', target: target.url },
          admin,
        );
        expect(refused.status).toBe(507);
        expect(refused.body).toEqual({ error: expect.stringMatching(/full.*nothing was saved/) });
      }

      // Results of the spell wait in memory; retries back off instead of following every result.
      await waitFor('results while full', () => target!.hits >= 4 && writer.oldestPending() < Infinity);
      await flush(t);
      const failuresBefore = health.problem()!.failures;
      for (let i = 0; i < 20; i++) await flush(t);
      // Twenty flushes are not twenty retries; the backoff timer may retry once meanwhile (slow runs).
      expect(health.problem()!.failures).toBeLessThanOrEqual(failuresBefore + 1);
      const healthz = await call<{ error: string }>(t, 'GET', '/healthz');
      expect(healthz.status).toBe(503);
      expect(healthz.body.error).toMatch(/^database writes failing since \d{4}-.*SQLITE_FULL/);
      const doctor = await call<{ ok: boolean; checks: { name: string; ok: boolean; detail: string }[] }>(
        t,
        'POST',
        '/api/doctor',
        undefined,
        admin,
      );
      expect(doctor.body.checks.find((c) => c.name === 'writes')).toMatchObject({
        ok: false,
        detail: expect.stringContaining('SQLITE_FULL'),
      });
      expect(writer.oldestPending()).toBeLessThan(Date.now());

      fs.rmSync(filler);
      const freedAt = Date.now();

      // No write lock is left behind: another connection can write at once.
      const other = new Database(path.join(dataDir, 'monitor.db'), { timeout: 0 });
      other.exec('BEGIN IMMEDIATE; ROLLBACK');
      other.close();

      const created = await call<Sensor>(
        t,
        'POST',
        '/api/sensors',
        { name: 'after freeing', type: 'http', target: target.url },
        admin,
      );
      expect(created.status).toBe(201);
      expect((await call(t, 'GET', '/healthz')).status).toBe(200);
      // The backlog goes out without a restart.
      await waitFor(
        'the results kept while full',
        async () => (await storedResults(t, probed.id, fullSince, freedAt)) >= 3,
      );

      const spell = t.logs.filter((l) => /storage|writes failing|writing probe results/.test(l.msg));
      expect(spell.map((l) => [l.level, l.msg])).toEqual([
        ['error', 'storage full'],
        ['info', 'storage recovered'],
      ]);
      expect(spell[1]).toMatchObject({ failed_writes: expect.any(Number) });

      // Acknowledged writes survive a graceful restart; the refused one never existed.
      await t.close();
      apps.splice(apps.indexOf(t), 1);
      t = await start(dataDir);
      admin = await signIn(t, ADMIN.username, ADMIN.password);
      const names = (await call<Sensor[]>(t, 'GET', '/api/sensors', undefined, admin)).body.map(
        (s) => s.name,
      );
      expect(names.sort()).toEqual(['after freeing', 'probed']);
      expect(await storedResults(t, probed.id, fullSince, freedAt)).toBeGreaterThanOrEqual(3);
    },
  );
});

describe('a full disk under 300 sensors at 1 s, then 2 MiB freed', () => {
  const SENSORS = 300;
  let mountPoint: string;
  let mounted = false;
  let t: TestApp | undefined;
  let target: HttpTarget | undefined;

  beforeAll(() => {
    mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-full-busy-'));
    if (process.getuid?.() !== 0) return;
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', mountPoint]);
    mounted = true;
  });

  afterAll(async () => {
    try {
      await t?.close().catch(() => undefined);
      await target?.close();
    } finally {
      if (mounted) execFileSync('umount', ['-l', mountPoint]);
      fs.rmSync(mountPoint, { recursive: true, force: true });
    }
  });

  itAsRoot(
    'answers 503 naming the storage while full, and stores again, for good, once 2 MiB are freed (needs root: mounts a tmpfs)',
    async () => {
      const dataDir = path.join(mountPoint, 'data');
      const filler = path.join(mountPoint, 'filler');
      t = await startTestApp({ dataDir });
      const app = t;
      const admin = await setupAdmin(app);
      target = await startHttpTarget(200);
      for (let i = 0; i < SENSORS; i++)
        await createSensor(app, admin, {
          name: `s${i}`,
          type: 'http',
          target: `${target.url}${i}`,
          interval: 1,
        });
      const health = app.app.get(StorageHealth);
      const stored = async (): Promise<number> =>
        (await sql<{ n: number }>(app, 'SELECT count(*) AS n FROM probe_results'))[0].n;
      const fullLines = (): number => app.logs.filter((l) => l.msg === 'storage full').length;
      await waitFor('results of every sensor', async () => (await stored()) >= 2 * SENSORS);

      fill(filler);
      await waitFor('writes failing', () => /SQLITE_FULL/.test(health.problem()?.reason ?? ''));
      const healthz = await call<{ error: string }>(app, 'GET', '/healthz');
      expect(healthz.status).toBe(503);
      expect(healthz.body.error).toMatch(/^database writes failing since .*SQLITE_FULL: the disk is full/);
      // A few seconds of results wait in memory; the spell stays one spell.
      const hits = target.hits;
      await waitFor('probes while full', () => target!.hits >= hits + 3 * SENSORS);
      expect((await call(app, 'GET', '/healthz')).status).toBe(503);
      expect(fullLines()).toBe(1);

      fs.truncateSync(filler, fs.statSync(filler).size - 2 * 1024 * 1024);
      const before = await stored();
      await waitFor('/healthz 200', async () => (await call(app, 'GET', '/healthz')).status === 200);
      await waitFor('results stored again', async () => (await stored()) > before);
      // Stays resumed: another 30 s of results (9,000) are stored with no new spell. An unbounded
      // write-ahead log took the 2 MiB within about 12 s and storing stopped again.
      const resumed = await stored();
      await waitFor('30 s more of results', async () => (await stored()) >= resumed + 30 * SENSORS, 120_000);
      expect(health.problem()).toBeNull();
      expect(fullLines()).toBe(1);
      expect((await call(app, 'GET', '/healthz')).status).toBe(200);
      expect(app.logs.filter((l) => l.msg === 'storage recovered')).toHaveLength(1);
    },
  );
});
