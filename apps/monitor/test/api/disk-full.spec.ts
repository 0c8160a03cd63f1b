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

jest.setTimeout(120_000);

const itAsRoot = process.getuid?.() === 0 ? it : it.skip;

/** Writes a file until the file system is full; the caller deletes it to free the space. */
function fill(file: string): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const size of [1 << 20, 1 << 12, 512]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

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
