import { DataSource } from 'typeorm';
import { MutableClock } from './support/clock';
import { ADMIN, call, expectNoSecretsIn, Headers, sessionCookieOf, setupAdmin, signIn } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const DAY = 86400_000;

describe('first-run setup', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    try {
      expectNoSecretsIn(t.bodies, [ADMIN.password]);
    } finally {
      await t.close();
    }
  });

  it('GET /api/session says setup is needed and nobody is signed in', async () => {
    const res = await call(t, 'GET', '/api/session');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      setup_needed: true,
      setup_host_allowed: true,
      authenticated: false,
      via: null,
      user: null,
      ui: {
        theme: 'system',
        live: 'on',
        borders: 'on',
        language: 'en',
        density: 'cards',
        order: 'problems',
        tour_version: 0,
      },
    });
  });

  it.each([
    [{ username: 'admin', password: 'short', mode: 'simple' }, 'password must be at least 8 characters'],
    [
      { username: 'admin', password: 'long enough', mode: 'expert' },
      'mode must be one of the following values: simple, advanced',
    ],
    [
      { username: 'bad name!', password: 'long enough', mode: 'simple' },
      'username must be 1 to 64 letters, digits or . _ @ -',
    ],
    [{ username: 'admin', password: 'long enough', mode: 'simple', role: 'viewer' }, 'unknown field "role"'],
  ])('refuses %p with 400', async (body, error) => {
    const res = await call(t, 'POST', '/api/setup', body);
    expect(res).toMatchObject({ status: 400, body: { error } });
    expect((await call(t, 'GET', '/api/session')).body).toMatchObject({ setup_needed: true });
  });

  it('creates the first administrator, signs it in and stores the mode', async () => {
    const res = await call(t, 'POST', '/api/setup', { ...ADMIN, mode: 'advanced' });
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    const cookie = sessionCookieOf(res.response) as string;
    const session = await call(t, 'GET', '/api/session', undefined, { cookie });
    expect(session.body).toMatchObject({
      setup_needed: false,
      authenticated: true,
      via: 'session',
      user: { username: 'admin', role: 'admin', totp_enabled: false, recovery_codes_left: 0 },
    });
    const [{ value }] = (await t.app
      .get(DataSource)
      .query(`SELECT value FROM settings WHERE key = 'setup_mode'`)) as {
      value: string;
    }[];
    expect(JSON.parse(value)).toBe('advanced');
  });

  it('refuses a second setup with 409', async () => {
    const res = await call(t, 'POST', '/api/setup', {
      username: 'intruder',
      password: 'long enough',
      mode: 'simple',
    });
    expect(res).toMatchObject({ status: 409, body: { error: expect.stringContaining('already exists') } });
  });
});

describe('MONITOR_ADMIN_PASSWORD', () => {
  it('creates admin at start when no account exists, and is ignored afterwards', async () => {
    const first = await startTestApp({ env: { MONITOR_ADMIN_PASSWORD: 'bootstrap secret 1' } });
    const dataDir = first.dataDir;
    try {
      await signIn(first, 'admin', 'bootstrap secret 1');
      expect(JSON.stringify(first.logs)).not.toContain('bootstrap secret 1');
      await first.app.close();
      const second = await startTestApp({ dataDir, env: { MONITOR_ADMIN_PASSWORD: 'another password 2' } });
      try {
        await signIn(second, 'admin', 'bootstrap secret 1');
        expect(
          (await call(second, 'POST', '/api/login', { username: 'admin', password: 'another password 2' }))
            .status,
        ).toBe(401);
      } finally {
        await second.close();
      }
    } finally {
      await first.close().catch(() => undefined);
    }
  });
});

describe('sign-in, cookies and sessions', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ clock });
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    try {
      expectNoSecretsIn(t.bodies, [ADMIN.password]);
    } finally {
      await t.close();
    }
  });

  it('sets monitor_session HttpOnly, SameSite=Strict, without Secure, for seven days', async () => {
    const res = await call(t, 'POST', '/api/login', ADMIN);
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    const header = res.response.headers
      .getSetCookie()
      .find((h) => h.startsWith('monitor_session=')) as string;
    const attributes = header.split(';').map((part) => part.trim().toLowerCase());
    expect(attributes).toEqual(
      expect.arrayContaining(['httponly', 'samesite=strict', 'path=/', `max-age=${7 * 86400}`]),
    );
    expect(attributes).not.toContain('secure');
  });

  it('fails alike for an unknown user and a wrong password', async () => {
    const unknown = await call(t, 'POST', '/api/login', { username: 'nobody', password: 'whatever1' });
    const wrong = await call(t, 'POST', '/api/login', { username: 'admin', password: 'wrong password' });
    for (const res of [unknown, wrong]) {
      expect(res).toMatchObject({ status: 401, body: { error: 'invalid username or password' } });
      expect(sessionCookieOf(res.response)).toBeNull();
    }
    // Move past the throttle window for the next tests.
    clock.advance(61_000);
  });

  it('accepts the username in any case', async () => {
    await signIn(t, 'ADMIN', ADMIN.password);
  });

  it('answers 401 without credentials and with a forged or expired cookie', async () => {
    expect((await call(t, 'GET', '/api/settings')).status).toBe(401);
    const forged = admin.cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await call(t, 'GET', '/api/settings', undefined, { cookie: forged })).status).toBe(401);
    const fresh = await signIn(t, 'admin', ADMIN.password);
    expect((await call(t, 'GET', '/api/settings', undefined, fresh)).status).toBe(200);
    clock.advance(7 * DAY + 1000);
    expect((await call(t, 'GET', '/api/settings', undefined, fresh)).status).toBe(401);
    admin = await signIn(t, 'admin', ADMIN.password);
  });

  it('logout clears the cookie', async () => {
    const res = await call(t, 'POST', '/api/logout', undefined, admin);
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    const header = res.response.headers
      .getSetCookie()
      .find((h) => h.startsWith('monitor_session=')) as string;
    expect(header).toMatch(/^monitor_session=;/);
    expect(header.toLowerCase()).toMatch(/expires=thu, 01 jan 1970|max-age=0/);
  });

  it('an old cookie is 401 after a password change', async () => {
    const other = await signIn(t, 'admin', ADMIN.password);
    const res = await call(
      t,
      'PUT',
      '/api/password',
      { current_password: ADMIN.password, new_password: 'new password 123' },
      admin,
    );
    expect(res.status).toBe(200);
    const fresh = { cookie: sessionCookieOf(res.response) as string };
    expect((await call(t, 'GET', '/api/settings', undefined, other)).status).toBe(401);
    expect((await call(t, 'GET', '/api/settings', undefined, admin)).status).toBe(401);
    expect((await call(t, 'GET', '/api/settings', undefined, fresh)).status).toBe(200);
    await call(
      t,
      'PUT',
      '/api/password',
      { current_password: 'new password 123', new_password: ADMIN.password },
      fresh,
    );
    admin = await signIn(t, 'admin', ADMIN.password);
  });
});

describe('login throttle', () => {
  const wrong = { username: 'admin', password: 'wrong password' };

  it('answers the sixth attempt in a minute with 429 and Retry-After, even with the right password', async () => {
    const clock = new MutableClock();
    const t = await startTestApp({ clock });
    try {
      await setupAdmin(t);
      for (let i = 0; i < 5; i++) expect((await call(t, 'POST', '/api/login', wrong)).status).toBe(401);
      const sixth = await call(t, 'POST', '/api/login', ADMIN);
      expect(sixth.status).toBe(429);
      expect(Number(sixth.response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(sixth.body).toEqual({ error: expect.stringMatching(/too many failed sign-in attempts/) });
      clock.advance(60_001);
      expect((await call(t, 'POST', '/api/login', ADMIN)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('ignores X-Forwarded-For unless trust_proxy is on', async () => {
    const t = await startTestApp();
    try {
      await setupAdmin(t);
      for (let i = 0; i < 5; i++) {
        await call(t, 'POST', '/api/login', wrong, { 'x-forwarded-for': `203.0.113.${i}` });
      }
      expect((await call(t, 'POST', '/api/login', ADMIN, { 'x-forwarded-for': '198.51.100.7' })).status).toBe(
        429,
      );
    } finally {
      await t.close();
    }
  });

  it('keys the throttle by X-Forwarded-For when trust_proxy is on', async () => {
    const t = await startTestApp({ env: { MONITOR_TRUST_PROXY: 'true' } });
    try {
      await setupAdmin(t);
      for (let i = 0; i < 5; i++)
        await call(t, 'POST', '/api/login', wrong, { 'x-forwarded-for': '203.0.113.9' });
      expect((await call(t, 'POST', '/api/login', ADMIN, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(
        429,
      );
      expect((await call(t, 'POST', '/api/login', ADMIN, { 'x-forwarded-for': '198.51.100.7' })).status).toBe(
        200,
      );
    } finally {
      await t.close();
    }
  });
});

describe('origin check on cookie-authenticated writes', () => {
  let t: TestApp;
  let admin: Headers;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await setupAdmin(t);
  });

  afterAll(() => t.close());

  const write = (headers: Headers) =>
    call(t, 'PUT', '/api/settings', { ui: { theme: 'dark' } }, { ...admin, ...headers });

  it('refuses a foreign Origin with 403', async () => {
    const res = await write({ origin: 'http://evil.example' });
    expect(res).toMatchObject({ status: 403, body: { error: expect.stringMatching(/cross-site/) } });
  });

  it('refuses a foreign Referer when there is no Origin', async () => {
    expect((await write({ referer: 'http://evil.example/page' })).status).toBe(403);
  });

  it('accepts the same origin, and a request with no Origin at all', async () => {
    const host = new URL(t.url).host;
    expect((await write({ origin: `http://${host}` })).status).toBe(200);
    expect((await write({ referer: `http://${host}/settings` })).status).toBe(200);
    expect((await write({})).status).toBe(200);
  });

  it('does not apply to reads, nor to the API key', async () => {
    expect(
      (await call(t, 'GET', '/api/settings', undefined, { ...admin, origin: 'http://evil.example' })).status,
    ).toBe(200);
    const key = (await call<{ api_key: string }>(t, 'POST', '/api/api-key', undefined, admin)).body.api_key;
    const res = await call(
      t,
      'PUT',
      '/api/settings',
      { ui: { theme: 'dark' } },
      { 'x-api-key': key, origin: 'http://evil.example' },
    );
    expect(res.status).toBe(200);
  });
});
