import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ExampleCounts, Sensor, SitesResponse } from '@monitor/contracts';
import { SAMPLE_SENSORS } from '../../src/examples/sample-dataset';
import {
  expectErrorShapes,
  statusCounts,
  readStoredRows,
  together,
  type Answer,
} from './support/concurrency';
import { call, Headers, setupAdmin } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

/**
 * "Only if none exists yet" rules of installation resources under parallel requests through the
 * real app (accounts and sign-in are in concurrency.spec.ts): exactly one winner, the others
 * refused with 4xx `{error}`, and the stored rows as one winner alone would leave them.
 */
jest.setTimeout(120_000);

const SENSOR = { type: 'tcp', target: '127.0.0.1:9', enabled: false };

describe('site names are unique under parallel writes', () => {
  let t: TestApp;
  let admin: Headers;

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false });
    admin = await setupAdmin(t);
  });

  afterAll(() => t.close());

  const siteNames = async () =>
    (await call<SitesResponse>(t, 'GET', '/api/sites', undefined, admin)).body.sites.map((s) => s.name);

  it('ten parallel creates of one name make one site; the rest answer 409 naming it', async () => {
    const answers = await together<{ error?: string }>(
      t,
      Array.from({ length: 10 }, () => ({
        method: 'POST',
        path: '/api/sites',
        body: { name: 'HQ' },
        headers: admin,
      })),
    );
    expect(statusCounts(answers)).toEqual({ 201: 1, 409: 9 });
    expectErrorShapes(answers);
    for (const answer of answers.filter((x) => x.status === 409))
      expect(answer.body.error).toBe('a site named "HQ" already exists');
    expect(await siteNames()).toEqual(['HQ']);
  });

  it('two sites renamed to one name at once: one is renamed, the other answers 409', async () => {
    for (const name of ['east', 'west'])
      expect((await call(t, 'POST', '/api/sites', { name }, admin)).status).toBe(201);
    const answers = await together(t, [
      { method: 'PUT', path: '/api/sites/east', body: { name: 'center' }, headers: admin },
      { method: 'PUT', path: '/api/sites/west', body: { name: 'center' }, headers: admin },
    ]);
    expect(statusCounts(answers)).toEqual({ 200: 1, 409: 1 });
    expectErrorShapes(answers);
    const names = await siteNames();
    expect(names.filter((n) => n === 'center')).toHaveLength(1);
    expect(names).toHaveLength(3);
  });
});

describe('API key rotation', () => {
  let t: TestApp;
  let admin: Headers;

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false });
    admin = await setupAdmin(t);
  });

  afterAll(() => t.close());

  const shownKey = async () =>
    (await call<{ api_key?: string | null }>(t, 'GET', '/api/settings', undefined, admin)).body.api_key ??
    null;
  const works = async (key: string) =>
    (await call(t, 'GET', '/api/settings', undefined, { 'x-api-key': key })).status === 200;

  it('twenty parallel rotations leave exactly one working key: one of the answers, and the one shown', async () => {
    const answers = await together<{ api_key: string }>(
      t,
      Array.from({ length: 20 }, () => ({ method: 'POST', path: '/api/api-key', headers: admin })),
    );
    expect(statusCounts(answers)).toEqual({ 200: 20 });
    const keys = answers.map((x) => x.body.api_key);
    expect(new Set(keys).size).toBe(20);
    const valid = [];
    for (const key of keys) if (await works(key)) valid.push(key);
    expect(valid).toHaveLength(1);
    expect(await shownKey()).toBe(valid[0]);
  });

  it('a removal and rotations at once leave either no key or one answered key, stored whole', async () => {
    for (let round = 0; round < 5; round++) {
      const answers = await together<{ api_key?: string }>(t, [
        { method: 'POST', path: '/api/api-key', headers: admin },
        { method: 'DELETE', path: '/api/api-key', headers: admin },
        { method: 'POST', path: '/api/api-key', headers: admin },
      ]);
      expect(statusCounts(answers)).toEqual({ 200: 3 });
      const rows = await readStoredRows<{ key: string }>(
        t.dataDir,
        `SELECT key FROM installation_secrets WHERE key LIKE 'api_key%' ORDER BY key`,
      );
      const shown = await shownKey();
      if (shown === null) {
        // The hash and the sealed copy go together.
        expect(rows).toEqual([]);
        for (const answer of [answers[0], answers[2]]) expect(await works(answer.body.api_key!)).toBe(false);
      } else {
        expect(rows).toHaveLength(2);
        expect([answers[0].body.api_key, answers[2].body.api_key]).toContain(shown);
        expect(await works(shown)).toBe(true);
      }
    }
  });
});

describe('sensor order', () => {
  it('parallel reorders leave exactly one of the orders sent, never a mix', async () => {
    const t = await startTestApp({ startScheduler: false });
    try {
      const admin = await setupAdmin(t);
      const ids: number[] = [];
      for (let i = 0; i < 8; i++)
        ids.push(
          (await call<Sensor>(t, 'POST', '/api/sensors', { ...SENSOR, name: `s${i}` }, admin)).body.id,
        );
      const orders = Array.from({ length: 8 }, (_, k) =>
        ids.map((_, i) => ids[(i + k) % ids.length]).reverse(),
      );
      for (let round = 0; round < 3; round++) {
        const answers = await together(
          t,
          orders.map((order) => ({
            method: 'PUT',
            path: '/api/sensor-order',
            body: { ids: order },
            headers: admin,
          })),
        );
        expect(statusCounts(answers)).toEqual({ 200: 8 });
        const stored = (
          await readStoredRows<{ id: number }>(t.dataDir, 'SELECT id FROM sensors ORDER BY sort_order, id')
        ).map((r) => r.id);
        expect(orders).toContainEqual(stored);
      }
    } finally {
      await t.close();
    }
  });
});

describe('sample data', () => {
  const sampleNames = async (dataDir: string) =>
    (
      await readStoredRows<{ name: string }>(
        dataDir,
        'SELECT name FROM sensors WHERE sample = TRUE ORDER BY name',
      )
    ).map((r) => r.name);

  it('parallel loads, and loads with removals, never duplicate sample rows and answer consistent totals', async () => {
    const t = await startTestApp({ startScheduler: false });
    try {
      const admin = await setupAdmin(t);
      const loads = await together<ExampleCounts>(
        t,
        Array.from({ length: 4 }, () => ({ method: 'POST', path: '/api/examples', headers: admin })),
      );
      expect(statusCounts(loads)).toEqual({ 200: 4 });
      expect(await sampleNames(t.dataDir)).toEqual([...new Set(SAMPLE_SENSORS.map((s) => s.name))].sort());
      const full = (await call<ExampleCounts>(t, 'GET', '/api/examples', undefined, admin)).body;
      for (const load of loads) expect(load.body).toEqual(full);
      for (let round = 0; round < 3; round++) {
        const mixed = await together<ExampleCounts>(t, [
          { method: 'DELETE', path: '/api/examples', headers: admin },
          { method: 'POST', path: '/api/examples', headers: admin },
          { method: 'DELETE', path: '/api/examples', headers: admin },
          { method: 'POST', path: '/api/examples', headers: admin },
        ]);
        expect(statusCounts(mixed)).toEqual({ 200: 4 });
        const names = await sampleNames(t.dataDir);
        expect(new Set(names).size).toBe(names.length);
        expect([0, SAMPLE_SENSORS.length]).toContain(names.length);
        for (const answer of mixed as Answer<ExampleCounts>[])
          for (const key of ['sensors', 'results', 'incidents', 'sites'] as const) {
            expect(answer.body[key]).toBeGreaterThanOrEqual(0);
            expect(answer.body[key]).toBeLessThanOrEqual(full[key]);
          }
        const now = (await call<ExampleCounts>(t, 'GET', '/api/examples', undefined, admin)).body;
        expect(now).toEqual(names.length === 0 ? { sensors: 0, results: 0, incidents: 0, sites: 0 } : full);
      }
    } finally {
      await t.close();
    }
  });

  it('parallel loads on a file-configured installation all answer 409 and write nothing', async () => {
    const t = await startTestApp({
      startScheduler: false,
      file: { sensors: [{ name: 'declared', ...SENSOR }] },
    });
    try {
      const admin = await setupAdmin(t);
      const answers = await together(
        t,
        Array.from({ length: 4 }, () => ({ method: 'POST', path: '/api/examples', headers: admin })),
      );
      expect(statusCounts(answers)).toEqual({ 409: 4 });
      expectErrorShapes(answers);
      expect(await sampleNames(t.dataDir)).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('resources declared in the configuration file', () => {
  const FILE = {
    sites: [{ name: 'HQ', kind: 'local' }],
    channels: [{ name: 'hook', type: 'webhook', config: { url: 'http://127.0.0.1:9/hook' } }],
    sensors: [{ name: 'homepage', ...SENSOR, site: 'HQ', channels: ['hook'] }],
    maintenance: [
      {
        name: 'night',
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-01T01:00:00Z',
        sensors: ['homepage'],
      },
    ],
  };
  const managed = (dataDir: string) =>
    Promise.all(
      ['sites', 'channels', 'sensors', 'maintenance_windows'].map(
        async (table) =>
          (
            await readStoredRows<{ n: number }>(
              dataDir,
              `SELECT count(*) AS n FROM ${table} WHERE managed_by = 'config'`,
            )
          )[0].n,
      ),
    );

  it('two starts on one data directory at once apply the file once, and so does a third', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-declared-once-'));
    try {
      const apps = await Promise.all(
        [0, 1].map(() => startTestApp({ startScheduler: false, dataDir, file: FILE })),
      );
      expect(await managed(dataDir)).toEqual([1, 1, 1, 1]);
      const third = await startTestApp({ startScheduler: false, dataDir, file: FILE });
      expect(await managed(dataDir)).toEqual([1, 1, 1, 1]);
      for (const app of [...apps, third]) await app.close();
      expect(await readStoredRows(dataDir, 'SELECT count(*) AS n FROM sensors')).toEqual([{ n: 1 }]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a start while the API creates sensors of the declared name adopts one row and leaves the others to the API', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-declared-api-'));
    const running = await startTestApp({ startScheduler: false, dataDir });
    try {
      const admin = await setupAdmin(running);
      const [second, created] = await Promise.all([
        startTestApp({ startScheduler: false, dataDir, file: FILE }),
        together<Sensor>(
          running,
          Array.from({ length: 5 }, () => ({
            method: 'POST',
            path: '/api/sensors',
            body: { name: 'homepage', ...SENSOR },
            headers: admin,
          })),
        ),
      ]);
      expect(statusCounts(created)).toEqual({ 201: 5 });
      await second.close();
      expect(await managed(dataDir)).toEqual([1, 1, 1, 1]);
      const rows = await readStoredRows<{ managed_by: string | null }>(
        dataDir,
        `SELECT managed_by FROM sensors WHERE name = 'homepage' ORDER BY id`,
      );
      expect(rows.filter((r) => r.managed_by === 'config')).toHaveLength(1);
    } finally {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
