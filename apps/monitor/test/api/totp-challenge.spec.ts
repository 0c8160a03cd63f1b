import { generate } from 'otplib';
import { databaseUrlFor, describeOnPostgres } from '../support/test-database';
import { MutableClock } from './support/clock';
import { call, Headers, setupAdmin } from './support/http';
import { sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(180_000);

const PASSWORD = 'long enough password';
/** A base32 TOTP secret the tests know (the enrolment API is the second-factor suite's business). */
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** Creates an account with the second factor on, written straight into its row. */
async function accountWithSecondFactor(t: TestApp, admin: Headers, username: string): Promise<void> {
  const created = await call(
    t,
    'POST',
    '/api/users',
    { username, password: PASSWORD, role: 'viewer' },
    admin,
  );
  expect(created.status).toBe(201);
  await sql(t, 'UPDATE users SET totp_secret = ?, totp_enabled = ? WHERE username = ?', [
    SECRET,
    true,
    username,
  ]);
}

/** The password step: answers the challenge. */
async function challengeFor(t: TestApp, username: string, headers: Headers = {}): Promise<string> {
  const res = await call<{ challenge: string }>(
    t,
    'POST',
    '/api/login',
    { username, password: PASSWORD },
    headers,
  );
  expect(res.status).toBe(200);
  return res.body.challenge;
}

/** The code of the clock's time step shifted by `steps` (a step may be used once per account). */
const codeAt = (clock: MutableClock, steps = 0) =>
  generate({ secret: SECRET, epoch: Math.floor(clock.now() / 1000) + steps * 30 });

const secondStep = (t: TestApp, challenge: string, code: string, headers: Headers = {}) =>
  call<{ error?: string }>(t, 'POST', '/api/login/totp', { challenge, code }, headers);

describe('a second-factor challenge takes one try', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ clock, startScheduler: false, env: { MONITOR_TRUST_PROXY: 'true' } });
    admin = await setupAdmin(t);
    for (const name of ['tina', 'tom', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6'])
      await accountWithSecondFactor(t, admin, name);
  });

  afterAll(() => t.close());

  afterEach(() => clock.advance(61_000));

  it('after a wrong code the right one is refused on that challenge, and works on a new one', async () => {
    const challenge = await challengeFor(t, 'tina');
    expect(await secondStep(t, challenge, '000000')).toMatchObject({
      status: 401,
      body: { error: 'invalid code' },
    });
    const reused = await secondStep(t, challenge, await codeAt(clock));
    expect(reused).toMatchObject({ status: 401, body: { error: expect.stringMatching(/already used/) } });
    expect((await secondStep(t, await challengeFor(t, 'tina'), await codeAt(clock))).status).toBe(200);
  });

  it('after a right code the same challenge is refused, even with a code of another step', async () => {
    const challenge = await challengeFor(t, 'tom');
    expect((await secondStep(t, challenge, await codeAt(clock, 1))).status).toBe(200);
    const again = await secondStep(t, challenge, await codeAt(clock, 2));
    expect(again).toMatchObject({ status: 401, body: { error: expect.stringMatching(/already used/) } });
  });

  it('keeps a spent challenge only for its two minutes', async () => {
    await secondStep(t, await challengeFor(t, 'tina'), '000000');
    const rows = async () =>
      Number((await sql<{ n: unknown }>(t, 'SELECT count(*) AS n FROM spent_challenges'))[0].n);
    expect(await rows()).toBeGreaterThan(0);
    clock.advance(2 * 60_000 + 1000);
    await secondStep(t, await challengeFor(t, 'tina'), '000000');
    expect(await rows()).toBe(1);
  });

  it('after five wrong codes for one account, from five addresses, a fresh challenge with the right code is 429', async () => {
    for (let i = 0; i < 5; i++) {
      const address = { 'x-forwarded-for': `203.0.113.${i}` };
      expect((await secondStep(t, await challengeFor(t, 'tina', address), '000000', address)).status).toBe(
        401,
      );
    }
    const address = { 'x-forwarded-for': '198.51.100.9' };
    const refused = await secondStep(t, await challengeFor(t, 'tina', address), await codeAt(clock), address);
    expect(refused.status).toBe(429);
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.error).toMatch(/too many failed sign-in attempts/);
    const lines = t.logs.filter((line) => line.msg === 'sign-in failed').slice(-6);
    expect(lines.map((line) => [line.username, line.reason])).toEqual([
      ...Array.from({ length: 5 }, () => ['tina', 'invalid code']),
      ['tina', 'rate limited'],
    ]);
    // Refused before the check: the code's step is still unused, so it signs in once the minute is over.
    clock.advance(60_001);
    expect(
      (await secondStep(t, await challengeFor(t, 'tina', address), await codeAt(clock), address)).status,
    ).toBe(200);
  });

  it('after five wrong codes from one address, for five accounts, that address is 429 for a sixth; another address is not', async () => {
    const address = { 'x-forwarded-for': '203.0.113.77' };
    for (const name of ['a1', 'a2', 'a3', 'a4', 'a5'])
      expect((await secondStep(t, await challengeFor(t, name), '000000', address)).status).toBe(401);
    const code = await codeAt(clock);
    const refused = await secondStep(t, await challengeFor(t, 'a6'), code, address);
    expect(refused.status).toBe(429);
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
    const elsewhere = { 'x-forwarded-for': '203.0.113.78' };
    expect((await secondStep(t, await challengeFor(t, 'a6'), code, elsewhere)).status).toBe(200);
  });
});

describeOnPostgres('instances share one PostgreSQL database')('a challenge tried on one instance', () => {
  let a: TestApp;
  let b: TestApp;
  let clock: MutableClock;

  beforeAll(async () => {
    clock = new MutableClock();
    a = await startTestApp({ clock, startScheduler: false });
    const admin = await setupAdmin(a);
    await accountWithSecondFactor(a, admin, 'tina');
    // Only public routes from here on: a second app's passport strategies replace the first's.
    b = await startTestApp({
      clock,
      startScheduler: false,
      env: { MONITOR_DATABASE_URL: databaseUrlFor(a.dataDir) },
    });
  });

  afterAll(async () => {
    await b?.close();
    await a.close();
  });

  it('is refused on another instance, after a wrong code or a right one', async () => {
    const wrongFirst = await challengeFor(a, 'tina');
    expect((await secondStep(a, wrongFirst, '000000')).status).toBe(401);
    const onB = await secondStep(b, wrongFirst, await codeAt(clock));
    expect(onB).toMatchObject({ status: 401, body: { error: expect.stringMatching(/already used/) } });

    const rightFirst = await challengeFor(b, 'tina');
    expect((await secondStep(b, rightFirst, await codeAt(clock))).status).toBe(200);
    const onA = await secondStep(a, rightFirst, await codeAt(clock, 1));
    expect(onA).toMatchObject({ status: 401, body: { error: expect.stringMatching(/already used/) } });
  });
});
