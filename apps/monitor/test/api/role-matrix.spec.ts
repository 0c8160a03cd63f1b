import { DiscoveryModule } from '@nestjs/core';
import { Controller, Get, Module } from '@nestjs/common';
import { Access, PUBLIC_ROUTES } from '../../src/core/http/access.decorator';
import { accountWithRole, call, Headers, setupAdmin } from './support/http';
import { discoverRoutes } from './support/routes';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

/**
 * The declared access of every route. A new endpoint must be added here, with the role the
 * specification's table gives it, or the first test fails.
 */
const ROUTE_ACCESS: Record<string, Access> = {
  'GET /healthz': 'public',
  'GET /api/version': 'public',
  'GET /api/session': 'public',
  'POST /api/setup': 'public',
  'POST /api/login': 'public',
  'POST /api/login/totp': 'public',
  'POST /api/logout': 'public',
  'GET /api/public/status-pages/:slug': 'public',
  'GET /status/:slug': 'public',
  'GET /status/refresh.js': 'public',
  'GET /badge/:slug/:sensor/status.svg': 'public',
  'GET /badge/:slug/:sensor/uptime.svg': 'public',
  'GET /badge/:slug/:sensor/latency.svg': 'public',
  'GET /api/push/:token': 'public',
  'POST /api/push/:token': 'public',
  'GET /api/settings': 'viewer',
  'PUT /api/settings': 'viewer',
  'POST /api/onboarding/tour': 'viewer',
  'PUT /api/password': 'viewer',
  'POST /api/me/totp/start': 'viewer',
  'GET /api/me/totp/qr': 'viewer',
  'POST /api/me/totp/confirm': 'viewer',
  'POST /api/me/totp/disable': 'viewer',
  'POST /api/me/totp/recovery': 'viewer',
  'POST /api/api-key': 'admin',
  'DELETE /api/api-key': 'admin',
  'POST /api/metrics-token': 'admin',
  'DELETE /api/metrics-token': 'admin',
  'GET /metrics': 'viewer',
  'GET /api/users': 'admin',
  'POST /api/users': 'admin',
  'PUT /api/users/:id': 'admin',
  'DELETE /api/users/:id': 'admin',
  'POST /api/users/:id/password': 'admin',
  'GET /api/sensors': 'viewer',
  'POST /api/sensors': 'admin',
  'POST /api/sensors/validate': 'operator',
  'GET /api/sensors/:id': 'viewer',
  'PUT /api/sensors/:id': 'admin',
  'PATCH /api/sensors/:id': 'operator',
  'DELETE /api/sensors/:id': 'admin',
  'POST /api/sensors/:id/probe': 'operator',
  'POST /api/sensors/:id/push-token': 'admin',
  'POST /api/sensors/:id/ack': 'operator',
  'PUT /api/sensor-order': 'admin',
  'GET /api/summary': 'viewer',
  'GET /api/events': 'viewer',
  'GET /api/sensors/:id/results': 'viewer',
  'GET /api/sensors/:id/series': 'viewer',
  'GET /api/sensors/:id/uptime': 'viewer',
  'GET /api/sensors/:id/incidents': 'viewer',
  'GET /api/incidents': 'viewer',
  'GET /api/search': 'viewer',
  'GET /api/examples': 'viewer',
  'POST /api/examples': 'admin',
  'DELETE /api/examples': 'admin',
  'POST /api/incidents/:id/ack': 'operator',
  'DELETE /api/incidents/:id/ack': 'operator',
  'GET /api/maintenance': 'viewer',
  'POST /api/maintenance': 'admin',
  'DELETE /api/maintenance/:id': 'admin',
  'GET /api/channels': 'viewer',
  'GET /api/channel-types': 'viewer',
  'GET /api/channels/:id': 'viewer',
  'POST /api/channels': 'admin',
  'PUT /api/channels/:id': 'admin',
  'DELETE /api/channels/:id': 'admin',
  'POST /api/channels/test': 'admin',
  'POST /api/channels/:id/test': 'admin',
  'GET /api/backup': 'admin',
  'POST /api/restore': 'admin',
  'GET /api/sites': 'viewer',
  'POST /api/sites': 'admin',
  'PUT /api/sites/:name': 'admin',
  'DELETE /api/sites/:name': 'admin',
  'PUT /api/map': 'admin',
  'GET /api/status-pages': 'viewer',
  'GET /api/status-pages/:id': 'viewer',
  'POST /api/status-pages': 'admin',
  'PUT /api/status-pages/:id': 'admin',
  'DELETE /api/status-pages/:id': 'admin',
  'POST /api/status-pages/:id/announcements': 'operator',
  'DELETE /api/status-pages/:id/announcements/:aid': 'operator',
  'POST /api/doctor': 'operator',
  'GET /api/cluster': 'admin',
  'DELETE /api/cluster/instances/:name': 'admin',
};

/** A route that forgot to declare its access: it must be refused, never become public. */
@Controller('api/forgotten')
class ForgottenController {
  @Get()
  forgotten(): { leaked: true } {
    return { leaked: true };
  }
}

@Module({ controllers: [ForgottenController] })
class ForgottenModule {}

describe('route access', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ imports: [DiscoveryModule] });
  });

  afterAll(() => t.close());

  it('every registered route declares its access, and the table above lists each with that access', () => {
    const routes = discoverRoutes(t);
    expect(routes.filter((r) => r.access === undefined).map((r) => r.route)).toEqual([]);
    const declared = Object.fromEntries(routes.map((r) => [r.route, r.access]));
    expect(declared).toEqual(ROUTE_ACCESS);
  });

  it('only the routes the specification lists are public', () => {
    const publicRoutes = discoverRoutes(t)
      .filter((r) => r.access === 'public')
      .map((r) => r.route);
    expect([...publicRoutes].sort()).toEqual([...PUBLIC_ROUTES].sort());
  });
});

describe('a route without declared access', () => {
  it('is refused at run time instead of being served', async () => {
    const t = await startTestApp({ imports: [ForgottenModule] });
    try {
      const res = await t.request('/api/forgotten');
      expect(res.status).toBe(500);
      expect(await res.text()).not.toContain('leaked');
      expect(t.logs.find((l) => l.msg === 'http request failed')?.error).toMatch(/declares no access/);
    } finally {
      await t.close();
    }
  });
});

describe('role matrix', () => {
  let t: TestApp;
  const as: Record<'none' | 'viewer' | 'operator' | 'admin', Headers> = {
    none: {},
    viewer: {},
    operator: {},
    admin: {},
  };

  beforeAll(async () => {
    t = await startTestApp();
    as.admin = await setupAdmin(t);
    as.operator = (await accountWithRole(t, as.admin, 'olga', 'operator')).headers;
    as.viewer = (await accountWithRole(t, as.admin, 'victor', 'viewer')).headers;
  });

  afterAll(() => t.close());

  const RANK = { none: 0, viewer: 1, operator: 2, admin: 3 } as const;
  const protectedRoutes = Object.entries(ROUTE_ACCESS).filter(([, access]) => access !== 'public');
  const cases = protectedRoutes.flatMap(([route, access]) =>
    (['none', 'viewer', 'operator', 'admin'] as const).map((who) => [route, access, who] as const),
  );

  it.each(cases)('%s (%s) as %s', async (route, access, who) => {
    const [method, path] = route.split(' ');
    const res = await call(
      t,
      method,
      path.replace(':id', '999999'),
      method === 'GET' ? undefined : {},
      as[who],
    );
    if (who === 'none') expect(res.status).toBe(401);
    else if (RANK[who] < RANK[access as 'viewer' | 'operator' | 'admin']) expect(res.status).toBe(403);
    else expect([401, 403]).not.toContain(res.status);
  });
});
