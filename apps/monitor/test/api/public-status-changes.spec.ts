import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PublicStatusPage } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { call, Headers, setupAdmin } from './support/http';
import { get, storePage } from './support/public-status';
import { createSensor, Sensor } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-21T12:30:00Z');

describe('public status pages follow their changes at once', () => {
  let t: TestApp;
  let admin: Headers;
  let one: Sensor;
  let two: Sensor;
  let pageId: number;

  beforeAll(async () => {
    // A clock that stands still: nothing here may wait for the 10 s the cache keeps a view.
    t = await startTestApp({ startScheduler: false, clock: new MutableClock(NOW) });
    admin = await setupAdmin(t);
    one = await createSensor(t, admin, { name: 'One', type: 'http', target: 'http://127.0.0.1:9/' });
    two = await createSensor(t, admin, { name: 'Two', type: 'http', target: 'http://127.0.0.1:9/' });
    pageId = await storePage(t, admin, { slug: 'live', published: true }, [
      { title: 'All', sensors: [one.id, two.id] },
    ]);
  });

  afterAll(() => t.close());

  const names = async () => {
    const res = await get(t, '/api/public/status-pages/live');
    return res.status === 200
      ? ((await res.json()) as PublicStatusPage).sections[0]!.sensors.map((s) => s.name)
      : res.status;
  };

  it('a deleted sensor, a renamed one, an announcement, a maintenance window and unpublishing show at the next request', async () => {
    expect(await names()).toEqual(['One', 'Two']);
    expect((await call(t, 'PUT', `/api/sensors/${two.id}`, { name: 'Second' }, admin)).status).toBe(200);
    expect(await names()).toEqual(['One', 'Second']);
    expect((await get(t, '/badge/live/Second/status.svg')).status).toBe(200);
    expect((await call(t, 'DELETE', `/api/sensors/${one.id}`, undefined, admin)).status).toBe(200);
    expect(await names()).toEqual(['Second']);
    expect((await get(t, '/badge/live/One/status.svg')).status).toBe(404);
    const announced = await call(
      t,
      'POST',
      `/api/status-pages/${pageId}/announcements`,
      { title: 'Fixed', body: 'All good', severity: 'info' },
      admin,
    );
    expect(announced.status).toBe(201);
    const page = (await (await get(t, '/api/public/status-pages/live')).json()) as PublicStatusPage;
    expect(page.announcements.map((a) => a.title).sort()).toEqual(['Fixed', 'Planned work']);
    // A maintenance window open now, covering the remaining sensor: the page says so at once.
    const window = await call(
      t,
      'POST',
      '/api/maintenance',
      {
        name: 'Private window name',
        starts_at: new Date(NOW - HOUR).toISOString(),
        ends_at: new Date(NOW + HOUR).toISOString(),
        sensors: [two.id],
      },
      admin,
    );
    expect(window.status).toBe(201);
    const maintained = (await (await get(t, '/api/public/status-pages/live')).json()) as PublicStatusPage;
    expect(maintained.status).toBe('maintenance');
    expect(maintained.sections[0]!.sensors[0]!.status).toBe('maintenance');
    expect(JSON.stringify(maintained)).not.toContain('Private window name');
    expect((await call(t, 'PUT', `/api/status-pages/${pageId}`, { published: false }, admin)).status).toBe(
      200,
    );
    expect(await names()).toBe(404);
    expect((await get(t, '/status/live')).status).toBe(404);
    expect((await get(t, '/badge/live/Second/status.svg')).status).toBe(404);
  });
});

describe('public status paths beside the built dashboard', () => {
  let t: TestApp;
  let dashboard: string;

  beforeAll(async () => {
    dashboard = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-dashboard-'));
    fs.writeFileSync(path.join(dashboard, 'index.html'), '<!DOCTYPE html><title>dashboard</title>');
    t = await startTestApp({ dashboardDir: dashboard });
  });

  afterAll(async () => {
    await t.close();
    fs.rmSync(dashboard, { recursive: true, force: true });
  });

  it('the dashboard fallback answers its deep links but never /status/ or /badge/ paths', async () => {
    expect(await (await get(t, '/sensors')).text()).toContain('dashboard');
    for (const url of ['/status/', '/status', '/badge/acme/x/other.svg', '/badge/acme']) {
      const res = await get(t, url);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('dashboard');
    }
    expect((await get(t, '/status/unknown')).status).toBe(404);
  });
});
