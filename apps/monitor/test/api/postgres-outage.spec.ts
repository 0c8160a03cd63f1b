import { Client } from 'pg';
import { PgCluster, startPostgresCluster } from '../support/postgres-cluster';
import { call, setupAdmin, type Headers } from './support/http';
import { startHttpTarget, type HttpTarget } from './support/sensors';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * PostgreSQL going away while the monitor runs (issue 15): reads answer 503 {error} meanwhile, probes
 * keep running, their results wait in memory and are all written once the server is back.
 */
jest.setTimeout(120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(200);
  }
}

async function storedResults(url: string, sensorId: number): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM probe_results WHERE sensor_id = $1',
      [sensorId],
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

describe('PostgreSQL outage while probing', () => {
  let cluster: PgCluster;
  let url: string;
  let t: TestApp;
  let target: HttpTarget;
  let admin: Headers;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    url = await cluster.createDatabase();
    target = await startHttpTarget();
    t = await startTestApp({ env: { MONITOR_DATABASE_URL: url } });
    admin = await setupAdmin(t);
  });
  afterAll(async () => {
    await t?.close();
    await target?.close();
    await cluster?.stop();
  });

  it('answers 503 while the server is gone, keeps probing, and writes every result when it is back', async () => {
    const created = await call<{ id: number }>(
      t,
      'POST',
      '/api/sensors',
      {
        name: 'web',
        type: 'http',
        target: target.url,
        interval: 1,
      },
      admin,
    );
    expect(created.status).toBe(201);
    const id = created.body.id;
    await waitFor(async () => (await storedResults(url, id)) >= 2, 20_000);

    await cluster.pause();
    const hitsAtOutage = target.hits;
    await waitFor(async () => target.hits >= hitsAtOutage + 4, 20_000);

    const read = await call<{ error: string }>(t, 'GET', '/api/sensors', undefined, admin);
    expect(read.status).toBe(503);
    expect(read.body.error).toMatch(/database/);
    const health = await t.request('/healthz');
    expect(health.status).toBe(503);

    await cluster.resume();
    // Every probe the target answered has a stored result once the backlog is written.
    await waitFor(async () => (await storedResults(url, id)) >= target.hits - 1, 60_000);
    const hits = target.hits;
    expect(await storedResults(url, id)).toBeGreaterThanOrEqual(hits - 1);
    const after = await call(t, 'GET', '/api/sensors', undefined, admin);
    expect(after.status).toBe(200);
    expect((await t.request('/healthz')).status).toBe(200);
    expect(t.logs.some((line) => line.msg === 'storage recovered')).toBe(true);
  });
});
