import { generate } from 'otplib';
import { MutableClock } from './support/clock';
import { ADMIN, call, expectNoSecretsIn, Headers, sessionCookieOf, setupAdmin } from './support/http';
import { boolOf, sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

describe('second factor', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let secret = '';
  let recoveryCodes: string[] = [];

  /** The code of the current 30 s step, shifted by `steps`. */
  const code = (steps = 0) => generate({ secret, epoch: Math.floor(clock.now() / 1000) + steps * 30 });

  const passwordStep = async () => {
    const res = await call<{ totp_required: true; challenge: string }>(t, 'POST', '/api/login', ADMIN);
    expect(res.status).toBe(200);
    expect(res.body.totp_required).toBe(true);
    expect(sessionCookieOf(res.response)).toBeNull();
    return res.body.challenge;
  };

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ clock });
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    try {
      // Only enrolment (start) and confirmation/regeneration answers may carry the secret and codes.
      const others = t.bodies.filter(
        (body) => !body.includes('"secret"') && !body.includes('"recovery_codes"'),
      );
      expectNoSecretsIn(others, [secret, ...recoveryCodes]);
    } finally {
      await t.close();
    }
  });

  it('has no QR code before enrolment starts', async () => {
    expect((await call(t, 'GET', '/api/me/totp/qr', undefined, admin)).status).toBe(404);
  });

  it('start stores an unconfirmed secret and answers it with an otpauth URI', async () => {
    const res = await call<{ secret: string; uri: string }>(
      t,
      'POST',
      '/api/me/totp/start',
      undefined,
      admin,
    );
    expect(res.status).toBe(200);
    secret = res.body.secret;
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(res.body.uri).toMatch(/^otpauth:\/\/totp\/Monitor:admin\?secret=[A-Z2-7]+&issuer=Monitor/);
    const session = await call(t, 'GET', '/api/session', undefined, admin);
    expect(session.body).toMatchObject({ user: { totp_enabled: false } });
  });

  it('serves the QR code as a PNG that is never cached', async () => {
    const res = await t.request('/api/me/totp/qr', { headers: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('confirm refuses a wrong code and then enables with the right one, answering 8 recovery codes once', async () => {
    expect((await call(t, 'POST', '/api/me/totp/confirm', { code: '000000' }, admin)).status).toBe(400);
    const res = await call<{ recovery_codes: string[] }>(
      t,
      'POST',
      '/api/me/totp/confirm',
      { code: await code() },
      admin,
    );
    expect(res.status).toBe(200);
    recoveryCodes = res.body.recovery_codes;
    expect(recoveryCodes).toHaveLength(8);
    for (const c of recoveryCodes) expect(c).toMatch(/^[A-Z2-9]{4}(-[A-Z2-9]{4}){3}$/);
    const stored = await sql<{ code_hash: string }>(t, 'SELECT code_hash FROM recovery_codes');
    expect(stored).toHaveLength(8);
    for (const row of stored) expect(recoveryCodes.join()).not.toContain(row.code_hash);
    const session = await call(t, 'GET', '/api/session', undefined, admin);
    expect(session.body).toMatchObject({ user: { totp_enabled: true, recovery_codes_left: 8 } });
    expect((await call(t, 'POST', '/api/me/totp/start', undefined, admin)).status).toBe(409);
  });

  it('sign-in now answers a challenge that is not a session', async () => {
    const challenge = await passwordStep();
    const asCookie = await call(t, 'GET', '/api/settings', undefined, {
      cookie: `monitor_session=${challenge}`,
    });
    expect(asCookie.status).toBe(401);
  });

  it('refuses the time step used at confirmation (a replay), accepts the next one, then refuses it again', async () => {
    const replay = await call(t, 'POST', '/api/login/totp', {
      challenge: await passwordStep(),
      code: await code(),
    });
    expect(replay).toMatchObject({ status: 401, body: { error: 'invalid code' } });
    const next = await code(1);
    const ok = await call(t, 'POST', '/api/login/totp', { challenge: await passwordStep(), code: next });
    expect(ok).toMatchObject({ status: 200, body: { ok: true } });
    const cookie = sessionCookieOf(ok.response) as string;
    expect((await call(t, 'GET', '/api/settings', undefined, { cookie })).status).toBe(200);
    const again = await call(t, 'POST', '/api/login/totp', { challenge: await passwordStep(), code: next });
    expect(again.status).toBe(401);
  });

  it('accepts one step of drift either way, not two', async () => {
    clock.advance(5 * 30_000);
    expect(
      (await call(t, 'POST', '/api/login/totp', { challenge: await passwordStep(), code: await code(2) }))
        .status,
    ).toBe(401);
    expect(
      (await call(t, 'POST', '/api/login/totp', { challenge: await passwordStep(), code: await code(-1) }))
        .status,
    ).toBe(200);
    clock.advance(60_000); // let the throttle window pass
  });

  it('a challenge lives two minutes', async () => {
    clock.advance(5 * 30_000);
    const challenge = await passwordStep();
    clock.advance(2 * 60_000 + 1000);
    const res = await call(t, 'POST', '/api/login/totp', { challenge, code: await code() });
    expect(res).toMatchObject({ status: 401, body: { error: expect.stringMatching(/expired/) } });
  });

  it('a recovery code works once, in any case and without dashes', async () => {
    clock.advance(60_000);
    const [first] = recoveryCodes;
    const typed = first.replace(/-/g, '').toLowerCase();
    const ok = await call(t, 'POST', '/api/login/totp', { challenge: await passwordStep(), code: typed });
    expect(ok.status).toBe(200);
    const again = await call(t, 'POST', '/api/login/totp', { challenge: await passwordStep(), code: first });
    expect(again.status).toBe(401);
    const session = await call(t, 'GET', '/api/session', undefined, {
      cookie: sessionCookieOf(ok.response) as string,
    });
    expect(session.body).toMatchObject({ user: { recovery_codes_left: 7 } });
    clock.advance(60_000);
  });

  it('a new set of recovery codes needs the password and invalidates the old set', async () => {
    expect(
      (await call(t, 'POST', '/api/me/totp/recovery', { password: 'wrong password' }, admin)).status,
    ).toBe(400);
    const res = await call<{ recovery_codes: string[] }>(
      t,
      'POST',
      '/api/me/totp/recovery',
      { password: ADMIN.password },
      admin,
    );
    expect(res.status).toBe(200);
    const old = recoveryCodes[1];
    recoveryCodes = [...recoveryCodes, ...res.body.recovery_codes];
    expect(
      (await call(t, 'POST', '/api/login/totp', { challenge: await passwordStep(), code: old })).status,
    ).toBe(401);
    const fresh = res.body.recovery_codes[0];
    expect(
      (await call(t, 'POST', '/api/login/totp', { challenge: await passwordStep(), code: fresh })).status,
    ).toBe(200);
    clock.advance(60_000);
  });

  it('disable needs the password and clears the secret and the codes', async () => {
    expect(
      (await call(t, 'POST', '/api/me/totp/disable', { password: 'wrong password' }, admin)).status,
    ).toBe(400);
    expect((await call(t, 'POST', '/api/me/totp/disable', { password: ADMIN.password }, admin)).status).toBe(
      200,
    );
    expect(await sql(t, 'SELECT count(*) AS n FROM recovery_codes')).toEqual([{ n: 0 }]);
    const users = await sql<{ totp_secret: string | null; totp_enabled: unknown }>(
      t,
      'SELECT totp_secret, totp_enabled FROM users',
    );
    expect(users.map((row) => ({ ...row, totp_enabled: boolOf(row.totp_enabled) }))).toEqual([
      { totp_secret: null, totp_enabled: false },
    ]);
    const res = await call(t, 'POST', '/api/login', ADMIN);
    expect(res.body).toEqual({ ok: true });
  });
});
