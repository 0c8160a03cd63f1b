import type { SessionInfo, UserAccount, UserList } from '@monitor/contracts';
import { generate } from 'otplib';
import { MutableClock } from './support/clock';
import {
  accountWithRole,
  ADMIN,
  apiKeyHeaders,
  call,
  expectNoSecretsIn,
  Headers,
  sessionCookieOf,
  setupAdmin,
  signIn,
} from './support/http';
import { sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

/** The password `accountWithRole` gives every account it creates. */
const PASSWORD = 'long enough password';
/** 40 characters but 80 bytes: over bcrypt's 72-byte limit. */
const OVER_72_BYTES = 'é'.repeat(40);
/** 36 characters, exactly 72 bytes: the longest password allowed. */
const EXACTLY_72_BYTES = 'é'.repeat(36);

const iso = (ms: number): string => new Date(ms).toISOString();

async function boot(): Promise<{ t: TestApp; clock: MutableClock; admin: Headers; adminId: number }> {
  const clock = new MutableClock();
  const t = await startTestApp({ clock });
  const admin = await setupAdmin(t);
  const session = await call<SessionInfo>(t, 'GET', '/api/session', undefined, admin);
  return { t, clock, admin, adminId: session.body.user?.id as number };
}

async function usersOf(t: TestApp, headers: Headers): Promise<UserAccount[]> {
  const res = await call<UserList>(t, 'GET', '/api/users', undefined, headers);
  expect(res.status).toBe(200);
  return res.body.users;
}

/** A refused sign-in; the clock first moves past the five-failures-a-minute throttle window. */
async function expectSignInRefused(
  t: TestApp,
  clock: MutableClock,
  username: string,
  password: string,
): Promise<void> {
  clock.advance(61_000);
  const res = await call(t, 'POST', '/api/login', { username, password });
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: 'invalid username or password' });
}

async function statusOf(t: TestApp, headers: Headers, path = '/api/users'): Promise<number> {
  return (await call(t, 'GET', path, undefined, headers)).status;
}

describe('accounts: GET and POST /api/users', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let viewer: Headers;

  beforeAll(async () => {
    ({ t, clock, admin } = await boot());
  });

  afterAll(async () => {
    expectNoSecretsIn(t.bodies, [ADMIN.password, PASSWORD, OVER_72_BYTES, EXACTLY_72_BYTES]);
    await t.close();
  });

  it('lists every account with its fields, and the roles', async () => {
    const res = await call<UserList>(t, 'GET', '/api/users', undefined, admin);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['roles', 'users']);
    expect(res.body.roles).toEqual(['admin', 'operator', 'viewer']);
    // Setup signs the first administrator in, so its last sign-in is already set.
    expect(res.body.users).toEqual([
      {
        id: expect.any(Number),
        username: 'admin',
        role: 'admin',
        disabled: false,
        totp_enabled: false,
        recovery_codes_left: 0,
        last_login_at: iso(clock.now()),
        created_at: iso(clock.now()),
      },
    ]);
  });

  it('POST creates an account (201 with the account); last_login_at is null until the first sign-in', async () => {
    const createdAt = clock.now();
    const res = await call<UserAccount>(
      t,
      'POST',
      '/api/users',
      { username: 'vera', password: PASSWORD, role: 'viewer' },
      admin,
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      username: 'vera',
      role: 'viewer',
      disabled: false,
      totp_enabled: false,
      recovery_codes_left: 0,
      last_login_at: null,
      created_at: iso(createdAt),
    });
    expect((await usersOf(t, admin)).find((u) => u.username === 'vera')).toEqual(res.body);

    clock.advance(5_000);
    viewer = await signIn(t, 'vera', PASSWORD);
    const vera = (await usersOf(t, admin)).find((u) => u.username === 'vera');
    expect(vera?.last_login_at).toBe(iso(clock.now()));
    expect(vera?.created_at).toBe(iso(createdAt));
  });

  it('accepts a password of exactly 72 bytes, which then signs in', async () => {
    const res = await call(
      t,
      'POST',
      '/api/users',
      { username: 'wide', password: EXACTLY_72_BYTES, role: 'operator' },
      admin,
    );
    expect(res.status).toBe(201);
    await signIn(t, 'wide', EXACTLY_72_BYTES);
  });

  const valid = { username: 'newcomer', password: PASSWORD, role: 'viewer' };
  it.each<[string, Record<string, unknown>, number, RegExp | string]>([
    ['the same username in another case', { ...valid, username: 'VERA' }, 409, /already exists/],
    ['a username with a space', { ...valid, username: 'two words' }, 400, /username/],
    ['an empty username', { ...valid, username: '' }, 400, /username/],
    ['a username of 65 characters', { ...valid, username: 'a'.repeat(65) }, 400, /username/],
    ['a missing username', { password: PASSWORD, role: 'viewer' }, 400, /username/],
    ['a password of 7 characters', { ...valid, password: 'seven77' }, 400, /password.*8 characters/],
    ['a password of 80 bytes (40 × é)', { ...valid, password: OVER_72_BYTES }, 400, /password.*72 bytes/],
    ['a missing password', { username: 'newcomer', role: 'viewer' }, 400, /password/],
    ['a password that is not a string', { ...valid, password: 12345678 }, 400, /password/],
    ['an unknown field', { ...valid, email: 'n@example.com' }, 400, 'unknown field "email"'],
    ['an unknown role', { ...valid, role: 'root' }, 400, /role/],
    ['a missing role', { username: 'newcomer', password: PASSWORD }, 400, /role/],
  ])('POST refuses %s', async (_case, body, status, error) => {
    const res = await call<{ error: string }>(t, 'POST', '/api/users', body, admin);
    expect(res.status).toBe(status);
    expect(Object.keys(res.body)).toEqual(['error']);
    if (typeof error === 'string') expect(res.body.error).toBe(error);
    else expect(res.body.error).toMatch(error);
  });

  it('a refused POST creates nothing', async () => {
    expect((await usersOf(t, admin)).map((u) => u.username).sort()).toEqual(['admin', 'vera', 'wide']);
  });

  it('account management is refused to operators and viewers (403) and without credentials (401)', async () => {
    const operator = await signIn(t, 'wide', EXACTLY_72_BYTES);
    const vera = (await usersOf(t, admin)).find((u) => u.username === 'vera') as UserAccount;
    const routes: [string, string, unknown][] = [
      ['GET', '/api/users', undefined],
      ['POST', '/api/users', { username: 'sneaky', password: PASSWORD, role: 'admin' }],
      ['PUT', `/api/users/${vera.id}`, { role: 'admin' }],
      ['DELETE', `/api/users/${vera.id}`, undefined],
      ['POST', `/api/users/${vera.id}/password`, { new_password: 'taken over now' }],
    ];
    for (const [method, path, body] of routes) {
      for (const [who, headers, status] of [
        ['viewer', viewer, 403],
        ['operator', operator, 403],
        ['nobody', {}, 401],
      ] as const) {
        const res = await call<{ error: string }>(t, method, path, body, headers);
        expect([method, path, who, res.status]).toEqual([method, path, who, status]);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
    }
    expect((await usersOf(t, admin)).find((u) => u.id === vera.id)).toMatchObject({
      role: 'viewer',
      disabled: false,
    });
    expect(await statusOf(t, viewer, '/api/session')).toBe(200);
    await signIn(t, 'vera', PASSWORD);
  });
});

describe('accounts: the last active administrator and self-protection (409)', () => {
  let t: TestApp;
  let admin: Headers;
  let adminId: number;
  let key: Headers;
  let second: Headers;
  let secondId: number;

  beforeAll(async () => {
    ({ t, admin, adminId } = await boot());
    key = await apiKeyHeaders(t, admin);
  });

  afterAll(async () => {
    expectNoSecretsIn(t.bodies, [ADMIN.password, PASSWORD]);
    await t.close();
  });

  const expectConflict = async (
    headers: Headers,
    method: string,
    id: number,
    body: unknown,
    error: RegExp,
  ): Promise<void> => {
    const res = await call<{ error: string }>(t, method, `/api/users/${id}`, body, headers);
    expect([method, JSON.stringify(body), res.status]).toEqual([method, JSON.stringify(body), 409]);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error).toMatch(error);
  };

  it('the only administrator cannot demote, disable or delete themselves', async () => {
    await expectConflict(admin, 'PUT', adminId, { role: 'operator' }, /last active administrator/);
    await expectConflict(admin, 'PUT', adminId, { role: 'viewer' }, /last active administrator/);
    await expectConflict(admin, 'PUT', adminId, { disabled: true }, /own account|last active administrator/);
    await expectConflict(admin, 'DELETE', adminId, undefined, /own account|last active administrator/);
    expect((await usersOf(t, admin)).find((u) => u.id === adminId)).toMatchObject({
      role: 'admin',
      disabled: false,
    });
  });

  it('the API key cannot demote, disable or delete the last active administrator either', async () => {
    await expectConflict(
      key,
      'PUT',
      adminId,
      { role: 'viewer' },
      /last active administrator cannot be demoted/,
    );
    await expectConflict(
      key,
      'PUT',
      adminId,
      { disabled: true },
      /last active administrator cannot be disabled/,
    );
    await expectConflict(key, 'DELETE', adminId, undefined, /last active administrator cannot be deleted/);
    expect((await usersOf(t, admin)).find((u) => u.id === adminId)).toMatchObject({
      role: 'admin',
      disabled: false,
    });
  });

  it('a disabled administrator does not count: the active one is still the last', async () => {
    const created = await accountWithRole(t, admin, 'backup', 'admin');
    ({ id: secondId, headers: second } = created);
    const disable = await call<UserAccount>(t, 'PUT', `/api/users/${secondId}`, { disabled: true }, admin);
    expect(disable.status).toBe(200);
    expect(disable.body).toMatchObject({ id: secondId, username: 'backup', role: 'admin', disabled: true });

    for (const headers of [admin, key]) {
      await expectConflict(headers, 'PUT', adminId, { role: 'operator' }, /last active administrator/);
      await expectConflict(headers, 'DELETE', adminId, undefined, /own account|last active administrator/);
    }
    await expectConflict(key, 'PUT', adminId, { disabled: true }, /last active administrator/);
  });

  it('with two active administrators, either can be demoted; then the other is the last again', async () => {
    expect((await call(t, 'PUT', `/api/users/${secondId}`, { disabled: false }, admin)).status).toBe(200);
    second = await signIn(t, 'backup', PASSWORD);

    const demote = await call<UserAccount>(t, 'PUT', `/api/users/${secondId}`, { role: 'operator' }, admin);
    expect(demote.status).toBe(200);
    expect(demote.body).toMatchObject({ id: secondId, role: 'operator', disabled: false });
    await expectConflict(key, 'PUT', adminId, { role: 'viewer' }, /last active administrator/);

    expect((await call(t, 'PUT', `/api/users/${secondId}`, { role: 'admin' }, admin)).status).toBe(200);
    // Now the first administrator can be demoted (here by the second) and promoted back.
    const first = await call<UserAccount>(t, 'PUT', `/api/users/${adminId}`, { role: 'viewer' }, second);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: adminId, role: 'viewer' });
    await expectConflict(key, 'PUT', secondId, { role: 'viewer' }, /last active administrator/);
    expect((await call(t, 'PUT', `/api/users/${adminId}`, { role: 'admin' }, second)).status).toBe(200);
  });

  it('nobody can delete or disable themselves, even with another administrator active', async () => {
    for (const [headers, id] of [
      [admin, adminId],
      [second, secondId],
    ] as const) {
      await expectConflict(headers, 'DELETE', id, undefined, /your own account/);
      await expectConflict(headers, 'PUT', id, { disabled: true }, /your own account/);
    }
    const users = await usersOf(t, admin);
    expect(users.map((u) => [u.username, u.role, u.disabled]).sort()).toEqual([
      ['admin', 'admin', false],
      ['backup', 'admin', false],
    ]);
  });

  it('the API key, which has no account, may disable and delete any account but the last active administrator', async () => {
    const disable = await call<UserAccount>(t, 'PUT', `/api/users/${secondId}`, { disabled: true }, key);
    expect(disable.status).toBe(200);
    expect(disable.body.disabled).toBe(true);
    expect(await statusOf(t, second)).toBe(401);
    expect((await call(t, 'PUT', `/api/users/${secondId}`, { disabled: false }, key)).status).toBe(200);

    const remove = await call(t, 'DELETE', `/api/users/${secondId}`, undefined, key);
    expect(remove.status).toBe(200);
    expect(remove.body).toEqual({ ok: true });
    expect((await usersOf(t, key)).map((u) => u.id)).toEqual([adminId]);
    expect(await statusOf(t, second)).toBe(401);

    await expectConflict(key, 'DELETE', adminId, undefined, /last active administrator cannot be deleted/);
  });

  it.each<[string, string, unknown]>([
    ['PUT', '/api/users/9999', { role: 'viewer' }],
    ['DELETE', '/api/users/9999', undefined],
    ['POST', '/api/users/9999/password', { new_password: 'a fine new password' }],
  ])('an unknown id is 404: %s %s', async (method, path, body) => {
    const res = await call<{ error: string }>(t, method, path, body, admin);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: expect.stringContaining('9999') });
  });

  it.each<[string, string, unknown]>([
    ['PUT', '/api/users/abc', { role: 'viewer' }],
    ['DELETE', '/api/users/abc', undefined],
    ['POST', '/api/users/abc/password', { new_password: 'a fine new password' }],
  ])('a non-numeric id is 400: %s %s', async (method, path, body) => {
    const res = await call(t, method, path, body, admin);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it.each<[string, Record<string, unknown>, RegExp | string]>([
    ['an unknown role', { role: 'root' }, /role/],
    ['disabled that is not a boolean', { disabled: 'yes' }, /disabled/],
    ['a username (not changeable here)', { username: 'renamed' }, 'unknown field "username"'],
    ['a password (not changeable here)', { password: 'a fine new password' }, 'unknown field "password"'],
  ])('PUT refuses %s (400) and changes nothing', async (_case, body, error) => {
    const res = await call<{ error: string }>(t, 'PUT', `/api/users/${adminId}`, body, admin);
    expect(res.status).toBe(400);
    if (typeof error === 'string') expect(res.body).toEqual({ error });
    else expect(res.body.error).toMatch(error);
    expect((await usersOf(t, admin)).find((u) => u.id === adminId)).toMatchObject({
      username: 'admin',
      role: 'admin',
      disabled: false,
    });
  });
});

describe('accounts: role, disable and delete take effect on the next request', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;

  beforeAll(async () => {
    ({ t, clock, admin } = await boot());
  });

  afterAll(async () => {
    expectNoSecretsIn(t.bodies, [ADMIN.password, PASSWORD]);
    await t.close();
  });

  it('a viewer promoted to administrator may manage accounts at once; demoted again, is refused at once', async () => {
    const vic = await accountWithRole(t, admin, 'vic', 'viewer');
    expect(await statusOf(t, vic.headers)).toBe(403);

    expect((await call(t, 'PUT', `/api/users/${vic.id}`, { role: 'admin' }, admin)).status).toBe(200);
    expect(await statusOf(t, vic.headers)).toBe(200);
    const session = await call<SessionInfo>(t, 'GET', '/api/session', undefined, vic.headers);
    expect(session.body.user).toMatchObject({ username: 'vic', role: 'admin' });

    expect((await call(t, 'PUT', `/api/users/${vic.id}`, { role: 'viewer' }, admin)).status).toBe(200);
    expect(await statusOf(t, vic.headers)).toBe(403);
    expect(await statusOf(t, vic.headers, '/api/settings')).toBe(200);
  });

  it('an administrator demoted to viewer is refused account management at once (403)', async () => {
    const ada = await accountWithRole(t, admin, 'ada', 'admin');
    expect(await statusOf(t, ada.headers)).toBe(200);
    expect((await call(t, 'PUT', `/api/users/${ada.id}`, { role: 'viewer' }, admin)).status).toBe(200);
    const res = await call(t, 'GET', '/api/users', undefined, ada.headers);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('a disabled account is signed out at once (401) and cannot sign in; enabled again, it can', async () => {
    const olga = await accountWithRole(t, admin, 'olga', 'operator');
    expect(await statusOf(t, olga.headers, '/api/settings')).toBe(200);

    expect((await call(t, 'PUT', `/api/users/${olga.id}`, { disabled: true }, admin)).status).toBe(200);
    expect(await statusOf(t, olga.headers, '/api/settings')).toBe(401);
    const session = await call<SessionInfo>(t, 'GET', '/api/session', undefined, olga.headers);
    expect(session.body).toMatchObject({ authenticated: false, user: null });
    await expectSignInRefused(t, clock, 'olga', PASSWORD);

    expect((await call(t, 'PUT', `/api/users/${olga.id}`, { disabled: false }, admin)).status).toBe(200);
    await signIn(t, 'olga', PASSWORD);
  });

  it('a deleted account is signed out at once (401) and cannot sign in', async () => {
    const dora = await accountWithRole(t, admin, 'dora', 'viewer');
    expect(await statusOf(t, dora.headers, '/api/settings')).toBe(200);
    expect((await call(t, 'DELETE', `/api/users/${dora.id}`, undefined, admin)).status).toBe(200);
    expect(await statusOf(t, dora.headers, '/api/settings')).toBe(401);
    await expectSignInRefused(t, clock, 'dora', PASSWORD);
    expect((await usersOf(t, admin)).map((u) => u.username)).not.toContain('dora');
  });
});

describe('accounts: password reset and change', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let adminId: number;
  let key: Headers;
  let pat: { id: number; headers: Headers };
  let adminPassword = ADMIN.password;
  let patPassword = PASSWORD;
  const passwords = [ADMIN.password, PASSWORD];
  const fresh = (label: string): string => {
    const password = `${label} password ${passwords.length}`;
    passwords.push(password);
    return password;
  };

  beforeAll(async () => {
    ({ t, clock, admin, adminId } = await boot());
    key = await apiKeyHeaders(t, admin);
    pat = await accountWithRole(t, admin, 'pat', 'viewer');
  });

  afterAll(async () => {
    expectNoSecretsIn(t.bodies, passwords);
    await t.close();
  });

  it('an administrator resets another account: all its sessions end, the new password signs in, the old does not', async () => {
    const other = await signIn(t, 'pat', patPassword);
    const next = fresh('reset');
    const res = await call(t, 'POST', `/api/users/${pat.id}/password`, { new_password: next }, admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(sessionCookieOf(res.response)).toBeNull();
    expect(await statusOf(t, admin)).toBe(200);

    expect(await statusOf(t, pat.headers, '/api/settings')).toBe(401);
    expect(await statusOf(t, other, '/api/settings')).toBe(401);
    await expectSignInRefused(t, clock, 'pat', patPassword);
    patPassword = next;
    pat.headers = await signIn(t, 'pat', patPassword);
  });

  it.each<[string, Record<string, unknown>, RegExp | string]>([
    ['a new password of 7 characters', { new_password: 'seven77' }, /new_password.*8 characters/],
    ['a new password of 80 bytes', { new_password: OVER_72_BYTES }, /new_password.*72 bytes/],
    ['a missing new password', {}, /new_password/],
    ['an unknown field', { new_password: 'a fine new password', password: 'x' }, 'unknown field "password"'],
  ])('a reset refuses %s (400) and ends no session', async (_case, body, error) => {
    const res = await call<{ error: string }>(t, 'POST', `/api/users/${pat.id}/password`, body, admin);
    expect(res.status).toBe(400);
    if (typeof error === 'string') expect(res.body).toEqual({ error });
    else expect(res.body.error).toMatch(error);
    expect(await statusOf(t, pat.headers, '/api/settings')).toBe(200);
  });

  it('a reset with the API key ends that account’s sessions and sets no cookie', async () => {
    const next = fresh('key reset');
    const res = await call(t, 'POST', `/api/users/${pat.id}/password`, { new_password: next }, key);
    expect(res.status).toBe(200);
    expect(sessionCookieOf(res.response)).toBeNull();
    expect(await statusOf(t, pat.headers, '/api/settings')).toBe(401);
    patPassword = next;
    pat.headers = await signIn(t, 'pat', patPassword);
  });

  it('an administrator resetting their own password stays signed in with the fresh cookie; other sessions end', async () => {
    const other = await signIn(t, 'admin', adminPassword);
    const next = fresh('own reset');
    const res = await call(t, 'POST', `/api/users/${adminId}/password`, { new_password: next }, admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    const cookie = sessionCookieOf(res.response);
    expect(cookie).not.toBeNull();
    const renewed = { cookie: cookie as string };
    expect(await statusOf(t, renewed)).toBe(200);
    expect(await statusOf(t, admin)).toBe(401);
    expect(await statusOf(t, other)).toBe(401);
    await expectSignInRefused(t, clock, 'admin', adminPassword);
    adminPassword = next;
    await signIn(t, 'admin', adminPassword);
    admin = renewed;
  });

  it('PUT /api/password with a wrong current password is 400 naming current_password and changes nothing', async () => {
    const res = await call<{ error: string }>(
      t,
      'PUT',
      '/api/password',
      { current_password: 'not the password', new_password: 'something else entirely' },
      pat.headers,
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/current_password/);
    expect(sessionCookieOf(res.response)).toBeNull();
    expect(await statusOf(t, pat.headers, '/api/settings')).toBe(200);
    await signIn(t, 'pat', patPassword);
  });

  it.each<[string, () => Record<string, unknown>, RegExp | string]>([
    [
      'a new password of 7 characters',
      () => ({ current_password: patPassword, new_password: 'seven77' }),
      /new_password/,
    ],
    [
      'a new password of 80 bytes',
      () => ({ current_password: patPassword, new_password: OVER_72_BYTES }),
      /new_password.*72 bytes/,
    ],
    ['a missing current password', () => ({ new_password: 'a fine new password' }), /current_password/],
    ['a missing new password', () => ({ current_password: patPassword }), /new_password/],
    [
      'an unknown field',
      () => ({ current_password: patPassword, new_password: 'a fine new password', username: 'pat' }),
      'unknown field "username"',
    ],
  ])('PUT /api/password refuses %s (400) and ends no session', async (_case, body, error) => {
    const res = await call<{ error: string }>(t, 'PUT', '/api/password', body(), pat.headers);
    expect(res.status).toBe(400);
    if (typeof error === 'string') expect(res.body).toEqual({ error });
    else expect(res.body.error).toMatch(error);
    expect(await statusOf(t, pat.headers, '/api/settings')).toBe(200);
  });

  it('PUT /api/password: this browser gets a fresh cookie; the old cookie and every other session end', async () => {
    const other = await signIn(t, 'pat', patPassword);
    const next = fresh('changed');
    const res = await call(
      t,
      'PUT',
      '/api/password',
      { current_password: patPassword, new_password: next },
      pat.headers,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    const cookie = sessionCookieOf(res.response);
    expect(cookie).not.toBeNull();
    const renewed = { cookie: cookie as string };

    const session = await call<SessionInfo>(t, 'GET', '/api/session', undefined, renewed);
    expect(session.body).toMatchObject({ authenticated: true, user: { id: pat.id, username: 'pat' } });
    expect(await statusOf(t, renewed, '/api/settings')).toBe(200);
    expect(await statusOf(t, pat.headers, '/api/settings')).toBe(401);
    expect(await statusOf(t, other, '/api/settings')).toBe(401);

    await expectSignInRefused(t, clock, 'pat', patPassword);
    patPassword = next;
    await signIn(t, 'pat', patPassword);
    pat.headers = renewed;
  });

  it('PUT /api/password with the API key is 403 (it has no account)', async () => {
    const res = await call(
      t,
      'PUT',
      '/api/password',
      { current_password: adminPassword, new_password: 'whatever it may be' },
      key,
    );
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('PUT /api/password without credentials is 401', async () => {
    const res = await call(t, 'PUT', '/api/password', {
      current_password: patPassword,
      new_password: 'whatever it may be',
    });
    expect(res.status).toBe(401);
  });
});

describe('accounts: deleting an account removes its recovery codes', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  /** Bodies that carry a secret by design: the enrolment secret and the recovery codes, shown once. */
  const shownOnce = new Set<number>();
  const secrets = [ADMIN.password, PASSWORD];

  beforeAll(async () => {
    ({ t, clock, admin } = await boot());
  });

  afterAll(async () => {
    expectNoSecretsIn(
      t.bodies.filter((_body, index) => !shownOnce.has(index)),
      secrets,
    );
    await t.close();
  });

  const once = async <T>(request: () => Promise<T>): Promise<T> => {
    const before = t.bodies.length;
    const result = await request();
    for (let index = before; index < t.bodies.length; index++) shownOnce.add(index);
    return result;
  };

  it('enrols a second factor, then DELETE removes the account and every recovery code', async () => {
    const tess = await accountWithRole(t, admin, 'tess', 'viewer');
    const start = await once(() =>
      call<{ secret: string; uri: string }>(t, 'POST', '/api/me/totp/start', undefined, tess.headers),
    );
    expect(start.status).toBe(200);
    secrets.push(start.body.secret);
    const code = await generate({ secret: start.body.secret, epoch: Math.floor(clock.now() / 1000) });
    const confirm = await once(() =>
      call<{ recovery_codes: string[] }>(t, 'POST', '/api/me/totp/confirm', { code }, tess.headers),
    );
    expect(confirm.status).toBe(200);
    expect(confirm.body.recovery_codes).toHaveLength(8);
    secrets.push(...confirm.body.recovery_codes);

    expect((await usersOf(t, admin)).find((u) => u.id === tess.id)).toMatchObject({
      totp_enabled: true,
      recovery_codes_left: 8,
    });
    const codesOf = async (id: number): Promise<number> =>
      (await sql<{ n: number }>(t, 'SELECT count(*) AS n FROM recovery_codes WHERE user_id = ?', [id]))[0].n;
    expect(await codesOf(tess.id)).toBe(8);

    const res = await call(t, 'DELETE', `/api/users/${tess.id}`, undefined, admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await codesOf(tess.id)).toBe(0);
    expect(await sql(t, 'SELECT id FROM users WHERE id = ?', [tess.id])).toEqual([]);
    expect(await statusOf(t, tess.headers, '/api/settings')).toBe(401);
  });
});
