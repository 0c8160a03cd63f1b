import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SessionInfo, SettingsResponse, UserAccount, UserList } from '@monitor/contracts';
import { DataSource } from 'typeorm';
import { accountWithRole, ADMIN, call, expectNoSecretsIn, Headers, setupAdmin, signIn } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const PASSWORD = 'long enough password';

describe('the API key', () => {
  let t: TestApp;
  let admin: Headers;
  let operator: Headers;
  let viewer: Headers;
  /** Every key this app has handed out. */
  const keys: string[] = [];
  /** Indexes in t.bodies of the responses allowed to carry a key: rotation and an administrator's settings. */
  const carriesKey = new Set<number>();

  beforeAll(async () => {
    t = await startTestApp();
    admin = await setupAdmin(t);
    ({ headers: operator } = await accountWithRole(t, admin, 'otto', 'operator'));
    ({ headers: viewer } = await accountWithRole(t, admin, 'vera', 'viewer'));
  });

  afterAll(async () => {
    expectNoSecretsIn(
      t.bodies.filter((_body, index) => !carriesKey.has(index)),
      [ADMIN.password, PASSWORD, ...keys],
    );
    await t.close();
  });

  /** A request whose response may show the key in clear. */
  const showingKey = async <T>(request: () => Promise<T>): Promise<T> => {
    const before = t.bodies.length;
    const result = await request();
    for (let index = before; index < t.bodies.length; index++) carriesKey.add(index);
    return result;
  };

  const rotate = async (headers: Headers): Promise<string> => {
    const res = await showingKey(() =>
      call<{ api_key: string }>(t, 'POST', '/api/api-key', undefined, headers),
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['api_key']);
    expect(typeof res.body.api_key).toBe('string');
    expect(res.body.api_key.length).toBeGreaterThanOrEqual(32);
    keys.push(res.body.api_key);
    return res.body.api_key;
  };

  const settingsOf = async (headers: Headers): Promise<SettingsResponse> => {
    const res = await showingKey(() => call<SettingsResponse>(t, 'GET', '/api/settings', undefined, headers));
    expect(res.status).toBe(200);
    return res.body;
  };

  const statusWith = async (headers: Headers, path = '/api/users'): Promise<number> =>
    (await call(t, 'GET', path, undefined, headers)).status;

  it('does not exist at first: api_key is null in an administrator’s settings', async () => {
    expect((await settingsOf(admin)).api_key).toBeNull();
  });

  it('POST /api/api-key as an administrator answers {api_key}', async () => {
    const key = await rotate(admin);
    expect(key).not.toBe('');
  });

  it.each<[string, (key: string) => Headers]>([
    ['X-API-Key', (key) => ({ 'x-api-key': key })],
    ['Authorization: Bearer', (key) => ({ authorization: `Bearer ${key}` })],
    ['Authorization: bearer (scheme in lower case)', (key) => ({ authorization: `bearer ${key}` })],
  ])('is accepted as %s and acts as an administrator', async (_how, headers) => {
    const key = keys[keys.length - 1];
    const list = await call<UserList>(t, 'GET', '/api/users', undefined, headers(key));
    expect(list.status).toBe(200);
    expect(list.body.users.map((u) => u.username).sort()).toEqual(['admin', 'otto', 'vera']);
  });

  it('identifies itself in GET /api/session as the API key, with no account', async () => {
    const res = await call<SessionInfo>(t, 'GET', '/api/session', undefined, { 'x-api-key': keys[0] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ authenticated: true, via: 'api_key', user: null });
  });

  it('may create an account (201)', async () => {
    const res = await call<UserAccount>(
      t,
      'POST',
      '/api/users',
      { username: 'made-by-key', password: PASSWORD, role: 'viewer' },
      { 'x-api-key': keys[keys.length - 1] },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ username: 'made-by-key', role: 'viewer' });
    await signIn(t, 'made-by-key', PASSWORD);
  });

  it('is shown in clear in GET /api/settings to administrators, and omitted for operators and viewers', async () => {
    const key = keys[keys.length - 1];
    expect((await settingsOf(admin)).api_key).toBe(key);
    expect((await settingsOf({ 'x-api-key': key })).api_key).toBe(key);
    for (const headers of [operator, viewer]) {
      const res = await call<SettingsResponse>(t, 'GET', '/api/settings', undefined, headers);
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('api_key');
      expect(JSON.stringify(res.body)).not.toContain(key);
    }
  });

  it.each<[string, string, string]>([
    ['a wrong key in X-API-Key', 'x-api-key', 'mk_not-the-key'],
    ['a wrong key in Authorization: Bearer', 'authorization', 'Bearer mk_not-the-key'],
    ['an empty X-API-Key', 'x-api-key', ''],
  ])('%s is 401, even with a valid session cookie beside it', async (_case, header, value) => {
    for (const extra of [{}, admin]) {
      const res = await call(t, 'GET', '/api/users', undefined, { ...extra, [header]: value });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    // A public route stays public: the wrong key only makes the caller anonymous.
    const session = await call<SessionInfo>(t, 'GET', '/api/session', undefined, { [header]: value });
    expect(session.status).toBe(200);
    expect(session.body.authenticated).toBe(false);
  });

  it.each<[string, () => Headers]>([
    ['an operator', () => operator],
    ['a viewer', () => viewer],
  ])('%s may neither rotate nor remove it (403)', async (_who, headers) => {
    const key = keys[keys.length - 1];
    for (const method of ['POST', 'DELETE']) {
      const res = await call(t, method, '/api/api-key', undefined, headers());
      expect([method, res.status]).toEqual([method, 403]);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    expect(await statusWith({ 'x-api-key': key })).toBe(200);
    expect((await settingsOf(admin)).api_key).toBe(key);
  });

  it('without credentials, rotating and removing are 401', async () => {
    for (const method of ['POST', 'DELETE']) {
      expect((await call(t, method, '/api/api-key')).status).toBe(401);
    }
    expect(await statusWith({ 'x-api-key': keys[keys.length - 1] })).toBe(200);
  });

  it('rotating makes the old key 401 at once and the new one work', async () => {
    const old = keys[keys.length - 1];
    const key = await rotate(admin);
    expect(key).not.toBe(old);
    expect(await statusWith({ 'x-api-key': old })).toBe(401);
    expect(await statusWith({ authorization: `Bearer ${old}` })).toBe(401);
    expect(await statusWith({ 'x-api-key': key })).toBe(200);
    expect((await settingsOf(admin)).api_key).toBe(key);
  });

  it('the key itself may rotate the key (it is an administrator); the key used stops working', async () => {
    const old = keys[keys.length - 1];
    const key = await rotate({ 'x-api-key': old });
    expect(await statusWith({ 'x-api-key': old })).toBe(401);
    expect(await statusWith({ 'x-api-key': key })).toBe(200);
  });

  it('is stored hashed: neither installation_secrets nor the database files hold it in clear', async () => {
    // The current key is live, so whatever checks it is stored now.
    expect(await statusWith({ 'x-api-key': keys[keys.length - 1] })).toBe(200);
    const db = t.app.get(DataSource);
    const rows = (await db.query('SELECT key, value FROM installation_secrets')) as {
      key: string;
      value: string;
    }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      for (const k of keys) expect([row.key, row.value.includes(k)]).toEqual([row.key, false]);
    }
    for (const file of ['monitor.db', 'monitor.db-wal']) {
      const full = path.join(t.dataDir, file);
      if (!fs.existsSync(full)) continue;
      const bytes = fs.readFileSync(full);
      for (const k of keys) expect([file, bytes.includes(k)]).toEqual([file, false]);
    }
  });

  it('is unaffected by disabling accounts: with the first administrator disabled, the key still works', async () => {
    const key = { 'x-api-key': keys[keys.length - 1] };
    const second = await accountWithRole(t, admin, 'second-admin', 'admin');
    const session = await call<SessionInfo>(t, 'GET', '/api/session', undefined, admin);
    const firstId = session.body.user?.id as number;

    const res = await call(t, 'PUT', `/api/users/${firstId}`, { disabled: true }, second.headers);
    expect(res.status).toBe(200);
    expect(await statusWith(admin)).toBe(401);
    expect(await statusWith(key)).toBe(200);

    expect((await call(t, 'PUT', `/api/users/${firstId}`, { disabled: false }, key)).status).toBe(200);
    expect(await statusWith(admin)).toBe(200);
  });

  it('DELETE /api/api-key removes it: the key is 401 at once and api_key is null', async () => {
    const key = keys[keys.length - 1];
    const res = await call(t, 'DELETE', '/api/api-key', undefined, admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await statusWith({ 'x-api-key': key })).toBe(401);
    expect(await statusWith({ authorization: `Bearer ${key}` })).toBe(401);
    expect(await statusWith({ ...admin, 'x-api-key': key })).toBe(401);
    expect((await settingsOf(admin)).api_key).toBeNull();
    expect(await statusWith(admin)).toBe(200);
  });

  it('DELETE when no key exists is harmless; a new key can be generated afterwards', async () => {
    expect((await call(t, 'DELETE', '/api/api-key', undefined, admin)).status).toBe(200);
    const key = await rotate(admin);
    expect(await statusWith({ 'x-api-key': key })).toBe(200);
  });

  it('the key itself may remove the key', async () => {
    const key = { 'x-api-key': keys[keys.length - 1] };
    expect((await call(t, 'DELETE', '/api/api-key', undefined, key)).status).toBe(200);
    expect(await statusWith(key)).toBe(401);
  });

  it.each<[string, string, unknown]>([
    ['POST', '/api/me/totp/start', undefined],
    ['POST', '/api/me/totp/confirm', { code: '123456' }],
    ['POST', '/api/me/totp/disable', { password: ADMIN.password }],
    ['PUT', '/api/password', { current_password: ADMIN.password, new_password: 'another password' }],
  ])('has no account, so %s %s is 403', async (method, route, body) => {
    const key = await rotate(admin);
    const res = await call(t, method, route, body, { 'x-api-key': key });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});
