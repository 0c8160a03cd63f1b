import { BCRYPT_WORK } from '../../src/auth/passwords';
import { MutableClock } from './support/clock';
import { accountWithRole, call, Headers, sessionCookieOf, setupAdmin, signIn } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(180_000);

const PASSWORD = 'long enough password';
const WRONG = 'not the password';

interface Endpoint {
  method: string;
  path: string;
  body: (password: string) => Record<string, string>;
  /** The status of a check with the right password (recovery codes: 409, the factor is off). */
  success: number;
}

const ENDPOINTS: Endpoint[] = [
  {
    method: 'PUT',
    path: '/api/password',
    body: (password) => ({ current_password: password, new_password: 'a brand new password' }),
    success: 200,
  },
  { method: 'POST', path: '/api/me/totp/disable', body: (password) => ({ password }), success: 200 },
  { method: 'POST', path: '/api/me/totp/recovery', body: (password) => ({ password }), success: 409 },
];

const from = (address: string, headers: Headers): Headers => ({ ...headers, 'x-forwarded-for': address });

describe.each(ENDPOINTS)('throttled password check: $method $path', (endpoint) => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let accounts = 0;

  const viewer = () => accountWithRole(t, admin, `viewer-${++accounts}`, 'viewer', PASSWORD);
  const check = (headers: Headers, address: string, password: string) =>
    call<{ error?: string }>(
      t,
      endpoint.method,
      endpoint.path,
      endpoint.body(password),
      from(address, headers),
    );

  beforeAll(async () => {
    clock = new MutableClock();
    // With trust_proxy each request may name its own client address, as behind a proxy.
    t = await startTestApp({ clock, startScheduler: false, env: { MONITOR_TRUST_PROXY: 'true' } });
    admin = await setupAdmin(t);
  });

  afterAll(() => t.close());

  // Each test starts with every failure of the earlier ones a minute old.
  afterEach(() => clock.advance(61_000));

  it('after five wrong passwords for one account, from five addresses, even the right one is 429 with Retry-After and checks nothing', async () => {
    const { headers } = await viewer();
    // Every bcrypt hash and comparison of the app takes its turn here (passwords.ts).
    const bcryptWork = jest.spyOn(BCRYPT_WORK, 'run');
    for (let i = 0; i < 5; i++) {
      const wrong = await check(headers, `203.0.113.${i}`, WRONG);
      expect(wrong).toMatchObject({ status: 400, body: { error: expect.stringMatching(/is not correct/) } });
    }
    try {
      expect(bcryptWork).toHaveBeenCalledTimes(5);
      const refused = await check(headers, '198.51.100.1', PASSWORD);
      expect(refused.status).toBe(429);
      expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.body).toEqual({ error: expect.stringMatching(/^too many failed password checks/) });
      expect(bcryptWork).toHaveBeenCalledTimes(5);
    } finally {
      bcryptWork.mockRestore();
    }
    const lines = t.logs.filter((line) => line.msg === 'password check failed');
    expect(lines.slice(-6).map((line) => [line.level, line.ip, line.reason])).toEqual([
      ...[0, 1, 2, 3, 4].map((i) => ['warn', `203.0.113.${i}`, 'wrong password']),
      ['warn', '198.51.100.1', 'rate limited'],
    ]);
    expect(JSON.stringify(t.logs)).not.toContain(WRONG);
    clock.advance(60_001);
    expect((await check(headers, '198.51.100.1', PASSWORD)).status).toBe(endpoint.success);
  });

  it('after five wrong passwords from one address, for five accounts, that address is 429 for a sixth; another address is not', async () => {
    for (let i = 0; i < 5; i++) {
      const { headers } = await viewer();
      expect((await check(headers, '203.0.113.50', WRONG)).status).toBe(400);
    }
    const { headers } = await viewer();
    const refused = await check(headers, '203.0.113.50', PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await check(headers, '203.0.113.51', PASSWORD)).status).toBe(endpoint.success);
  });

  it('four wrong passwords leave the right one working', async () => {
    const { headers } = await viewer();
    for (let i = 0; i < 4; i++) expect((await check(headers, '203.0.113.90', WRONG)).status).toBe(400);
    expect((await check(headers, '203.0.113.90', PASSWORD)).status).toBe(endpoint.success);
  });
});

describe('a refused password check', () => {
  it('changes nothing, and counts for sign-ins from that address too', async () => {
    const clock = new MutableClock();
    const t = await startTestApp({ clock, startScheduler: false });
    try {
      const admin = await setupAdmin(t);
      const { headers } = await accountWithRole(t, admin, 'vera', 'viewer', PASSWORD);
      const change = (current: string) =>
        call(
          t,
          'PUT',
          '/api/password',
          { current_password: current, new_password: 'a brand new password' },
          headers,
        );
      for (let i = 0; i < 5; i++) expect((await change(WRONG)).status).toBe(400);
      const refused = await change(PASSWORD);
      expect(refused.status).toBe(429);
      expect(sessionCookieOf(refused.response)).toBeNull();
      // The old cookie still works, and once the address may try again, the old password signs in.
      expect((await call(t, 'GET', '/api/session', undefined, headers)).body).toMatchObject({
        authenticated: true,
      });
      const early = await call(t, 'POST', '/api/login', { username: 'vera', password: PASSWORD });
      expect(early.status).toBe(429);
      clock.advance(60_001);
      await signIn(t, 'vera', PASSWORD);
    } finally {
      await t.close();
    }
  });
});
