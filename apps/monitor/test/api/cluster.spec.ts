import type { ClusterView, DoctorCheck, DoctorReport } from '@monitor/contracts';
import { accountWithRole, apiKeyHeaders, call, Headers, setupAdmin } from './support/http';
import { createSensor, sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';
import { testBackend } from '../support/test-database';

jest.setTimeout(60_000);

const onPostgres = testBackend() === 'postgres';
/** Other instances exist only on PostgreSQL; on SQLite the test is skipped with the reason in its title. */
const itOnPostgres = (title: string, fn: jest.ProvidesCallback) =>
  onPostgres ? it(title, fn) : it.skip(`${title} (PostgreSQL only: SQLite serves one process)`, fn);

const DB_NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

describe('cluster: GET /api/cluster, DELETE /api/cluster/instances/{name}, the doctor', () => {
  let t: TestApp;
  let admin: Headers;
  let operator: Headers;
  let viewer: Headers;

  const view = async (headers: Headers = admin): Promise<ClusterView> => {
    const res = await call<ClusterView>(t, 'GET', '/api/cluster', undefined, headers);
    expect(res.status).toBe(200);
    return res.body;
  };
  const doctorCheck = async (): Promise<{ report: DoctorReport; check: DoctorCheck }> => {
    const res = await call<DoctorReport>(t, 'POST', '/api/doctor', undefined, admin);
    expect(res.status).toBe(200);
    const check = res.body.checks.find((c) => c.name === 'cluster');
    if (!check) throw new Error(`no cluster check in ${JSON.stringify(res.body)}`);
    return { report: res.body, check };
  };

  beforeAll(async () => {
    t = await startTestApp({ file: { instance_name: 'node-a', cluster: { dead_after: '5s' } } });
    admin = await setupAdmin(t);
    operator = (await accountWithRole(t, admin, 'otto', 'operator')).headers;
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
    for (const name of ['one', 'two', 'three'])
      await createSensor(t, admin, { name, type: 'http', target: 'http://127.0.0.1:9/', interval: 3600 });
    await createSensor(t, admin, {
      name: 'paused',
      type: 'http',
      target: 'http://127.0.0.1:9/',
      interval: 3600,
      enabled: false,
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('administrators only: viewer and operator 403, nobody signed in 401, admin and the API key 200', async () => {
    expect((await call(t, 'GET', '/api/cluster', undefined, viewer)).status).toBe(403);
    expect((await call(t, 'GET', '/api/cluster', undefined, operator)).status).toBe(403);
    expect((await call(t, 'GET', '/api/cluster', undefined, {})).status).toBe(401);
    expect((await call(t, 'DELETE', '/api/cluster/instances/node-x', undefined, operator)).status).toBe(403);
    await view(admin);
    await view(await apiKeyHeaders(t, admin));
  });

  it(`lists this instance alone, alive, probing the 3 enabled sensors (mode ${onPostgres ? 'cluster' : 'single'})`, async () => {
    const cluster = await view();
    expect(cluster).toEqual({
      mode: onPostgres ? 'cluster' : 'single',
      self: 'node-a',
      dead_after_s: 5,
      instances: [
        {
          name: 'node-a',
          version: expect.any(String),
          started_at: expect.any(String),
          last_seen_at: expect.any(String),
          alive: true,
          gone: null,
          sensors: 3,
        },
      ],
    });
    const [self] = cluster.instances;
    expect(Date.parse(self.started_at)).toBeLessThanOrEqual(Date.parse(self.last_seen_at));
  });

  it('refuses to remove this (alive) instance with 409 and an unknown one with 404, changing nothing', async () => {
    const self = await call<{ error: string }>(
      t,
      'DELETE',
      '/api/cluster/instances/node-a',
      undefined,
      admin,
    );
    expect(self.status).toBe(409);
    expect(self.body.error).toMatch(/alive/);
    const unknown = await call<{ error: string }>(
      t,
      'DELETE',
      '/api/cluster/instances/nobody',
      undefined,
      admin,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/nobody/);
    expect((await view()).instances.map((i) => i.name)).toEqual(['node-a']);
  });

  it('the doctor has a passing cluster check naming this instance and its load', async () => {
    const { report, check } = await doctorCheck();
    expect(check.ok).toBe(true);
    expect(check.detail).toBe(
      onPostgres
        ? 'cluster of 1 instance: node-a (this, 3 sensors)'
        : 'single instance (SQLite): node-a (3 sensors)',
    );
    expect(report.ok).toBe(true);
  });

  itOnPostgres(
    'a dead instance is listed as dead, fails the doctor, and is removed with 204 (then 404)',
    async () => {
      // The row a killed process leaves: registered, never stopped, its heartbeat an hour old.
      await sql(
        t,
        `INSERT INTO cluster_instances (name, token, version, started_at, last_seen_at, stopped_at)
       VALUES (?, ?, ?, ${DB_NOW_MS} - 7200000, ${DB_NOW_MS} - 3600000, NULL)`,
        ['node-z', 'gone-token', '0.0.1'],
      );
      const cluster = await view();
      expect(cluster.instances.map((i) => [i.name, i.alive, i.gone, i.sensors])).toEqual([
        ['node-a', true, null, 3],
        ['node-z', false, 'dead', 0],
      ]);
      const dead = cluster.instances[1];
      const { report, check } = await doctorCheck();
      expect(check.ok).toBe(false);
      expect(check.detail).toBe(
        `cluster of 2 instances: node-a (this, 3 sensors), node-z dead since ${dead.last_seen_at}; ` +
          'the dead instance is listed until an administrator removes it',
      );
      expect(report.ok).toBe(false);

      expect((await call(t, 'DELETE', '/api/cluster/instances/node-z', undefined, operator)).status).toBe(
        403,
      );
      expect((await call(t, 'DELETE', '/api/cluster/instances/node-z', undefined, admin)).status).toBe(204);
      expect((await view()).instances.map((i) => i.name)).toEqual(['node-a']);
      expect((await call(t, 'DELETE', '/api/cluster/instances/node-z', undefined, admin)).status).toBe(404);
      expect((await doctorCheck()).check.ok).toBe(true);
    },
  );

  itOnPostgres('a stopped instance is listed as stopped, passes the doctor and can be removed', async () => {
    await sql(
      t,
      `INSERT INTO cluster_instances (name, token, version, started_at, last_seen_at, stopped_at)
       VALUES (?, ?, ?, ${DB_NOW_MS} - 7200000, ${DB_NOW_MS} - 60000, ${DB_NOW_MS} - 60000)`,
      ['node-s', 'left-token', '0.0.1'],
    );
    const stopped = (await view()).instances.find((i) => i.name === 'node-s');
    expect(stopped).toMatchObject({ alive: false, gone: 'stopped', sensors: 0 });
    const { check } = await doctorCheck();
    expect(check).toEqual({
      name: 'cluster',
      ok: true,
      detail: `cluster of 2 instances: node-a (this, 3 sensors), node-s stopped at ${stopped?.last_seen_at}`,
    });
    expect((await call(t, 'DELETE', '/api/cluster/instances/node-s', undefined, admin)).status).toBe(204);
    expect((await view()).instances.map((i) => i.name)).toEqual(['node-a']);
  });
});
