import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { DiscoveryModule } from '@nestjs/core';
import { call, Headers, setupAdmin } from './support/http';
import { storePage } from './support/public-status';
import { discoverRoutes } from './support/routes';
import { createSensor } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

const PUBLIC_JSON = 'GET /api/public/status-pages/:slug';

/** A path for a route pattern: parameters filled with values that name nothing. */
const pathOf = (pattern: string): string =>
  pattern
    .replace(':id', '999999')
    .replace(':aid', '999999')
    .replace(':slug', 'nope')
    .replace(':sensor', 'nope')
    .replace(':token', 'no-such-token')
    .replace(':name', 'nope');

describe('Cache-Control of API answers', () => {
  let t: TestApp;
  let admin: Headers;
  let dashboardDir: string;
  let apiRoutes: string[];

  beforeAll(async () => {
    dashboardDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-dashboard-'));
    fs.writeFileSync(
      path.join(dashboardDir, 'index.html'),
      '<html><body><app-root></app-root></body></html>',
    );
    fs.writeFileSync(path.join(dashboardDir, 'main-ABCDEFGH.js'), 'console.log(1);');
    t = await startTestApp({ imports: [DiscoveryModule], dashboardDir, startScheduler: false });
    const setup = await call(t, 'POST', '/api/setup', { username: 'admin', password: 'x', mode: 'simple' });
    expect(setup.status).toBe(400);
    expect(setup.response.headers.get('cache-control')).toBe('no-store');
    admin = await setupAdmin(t);
    apiRoutes = discoverRoutes(t)
      .map((r) => r.route)
      .filter((r) => r.split(' ')[1].startsWith('/api/'));
  });

  afterAll(async () => {
    await t.close();
    fs.rmSync(dashboardDir, { recursive: true, force: true });
  });

  it('every /api route answers no-store, signed out and as an administrator, success or error', async () => {
    expect(apiRoutes.length).toBeGreaterThan(70);
    const wrong: string[] = [];
    const statuses = new Set<number>();
    // Signing out would end the administrator's session for the routes after it.
    const routes = [...apiRoutes.filter((r) => r !== 'POST /api/logout'), 'POST /api/logout'];
    for (const who of ['none', 'admin'] as const) {
      for (const route of routes) {
        if (route === PUBLIC_JSON) continue;
        const [method, pattern] = route.split(' ');
        const res = await call(
          t,
          method,
          pathOf(pattern),
          method === 'GET' ? undefined : {},
          who === 'admin' ? admin : {},
        );
        statuses.add(res.status);
        const value = res.response.headers.get('cache-control');
        if (value !== 'no-store') wrong.push(`${route} as ${who}: ${res.status} ${value}`);
      }
    }
    expect(wrong).toEqual([]);
    // The walk met successes and the usual errors alike.
    for (const status of [200, 400, 401, 404]) expect(statuses).toContain(status);
  });

  it('answers outside any route, malformed requests and the event stream are no-store too', async () => {
    const cases: [string, RequestInit][] = [
      ['/api', {}],
      ['/api/no-such-thing', {}],
      ['/api/sensors/abc', { headers: admin }],
      ['/api/incidents?limit=nonsense', { headers: admin }],
      ['/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' }],
      ['/api/settings', { method: 'PUT', headers: { ...admin, 'content-type': 'text/plain' }, body: 'x' }],
      ['/api/public/status-pages/nope', {}],
    ];
    for (const [p, init] of cases) {
      const res = await t.request(p, init);
      expect([p, res.status >= 400, res.headers.get('cache-control')]).toEqual([p, true, 'no-store']);
    }
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.get(
        `${t.url}/api/events`,
        { headers: { ...admin, accept: 'text/event-stream' } },
        resolve,
      );
      req.on('error', reject);
    });
    stream.destroy();
    expect(stream.statusCode).toBe(200);
    expect(stream.headers['cache-control']).toBe('no-store');
  });

  it('keeps the caching of the public status page JSON, its HTML, badges and the dashboard files', async () => {
    const sensor = await createSensor(t, admin, {
      name: 'Web',
      type: 'http',
      target: 'http://127.0.0.1:9/',
      interval: 60,
    });
    await storePage(t, admin, { slug: 'acme', published: true }, [{ title: 'All', sensors: [sensor.id] }]);
    for (const p of [
      '/api/public/status-pages/acme',
      '/status/acme',
      '/status/refresh.js',
      '/badge/acme/Web/status.svg',
    ]) {
      const res = await t.request(p);
      expect([p, res.status, res.headers.get('cache-control')]).toEqual([p, 200, 'public, max-age=5']);
    }
    expect((await t.request('/')).headers.get('cache-control')).toBe('no-cache');
    expect((await t.request('/sensors/1')).headers.get('cache-control')).toBe('no-cache');
    expect((await t.request('/main-ABCDEFGH.js')).headers.get('cache-control')).toContain('immutable');
  });
});
