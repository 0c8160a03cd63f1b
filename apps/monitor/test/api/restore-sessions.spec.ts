import { MutableClock } from './support/clock';
import { accountWithRole, call, Headers, sessionCookieOf, setupAdmin, signIn } from './support/http';
import { sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

const PASSWORD = 'long enough password';

describe('a restore and the sessions of the accounts it restores', () => {
  let t: TestApp;
  let admin: Headers;

  const status = async (headers: Headers) => (await call(t, 'GET', '/api/session', undefined, headers)).body;
  const signedIn = async (headers: Headers) =>
    ((await status(headers)) as { authenticated: boolean }).authenticated;

  /** The configuration backup, accounts included. */
  const backup = async (): Promise<string> => {
    const response = await t.request('/api/backup', { headers: admin });
    expect(response.status).toBe(200);
    return response.text();
  };

  /** Restores as `admin`, then carries on with the fresh cookie the restore answered, if any. */
  const restore = async (text: string) => {
    const response = await t.request('/api/restore', {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: text,
    });
    const body = (await response.json()) as { token_epoch_notice: boolean };
    expect(response.status).toBe(200);
    const cookie = sessionCookieOf(response);
    return { body, cookie };
  };

  const epochOf = async (username: string) =>
    Number(
      (
        await sql<{ token_epoch: unknown }>(t, 'SELECT token_epoch FROM users WHERE username = ?', [username])
      )[0].token_epoch,
    );

  beforeAll(async () => {
    t = await startTestApp({ clock: new MutableClock(), startScheduler: false });
    admin = await setupAdmin(t);
  });

  afterAll(() => t.close());

  it('ends every session of a restored account, also one the document would make valid again', async () => {
    const vic = await accountWithRole(t, admin, 'vic', 'viewer', PASSWORD);
    const text = await backup();
    const epoch = await epochOf('vic');
    // A password change ends the old session; the document still holds the old epoch.
    const changed = await call(
      t,
      'PUT',
      '/api/password',
      { current_password: PASSWORD, new_password: 'second password 2' },
      vic.headers,
    );
    expect(changed.status).toBe(200);
    const afterChange = { cookie: sessionCookieOf(changed.response) as string };
    expect(await signedIn(vic.headers)).toBe(false);

    const { body, cookie } = await restore(text);
    expect(body.token_epoch_notice).toBe(true);
    expect(await epochOf('vic')).toBe(epoch + 2);
    expect(await signedIn(vic.headers)).toBe(false);
    expect(await signedIn(afterChange)).toBe(false);
    // The document's password signs in again.
    await signIn(t, 'vic', PASSWORD);

    // The restoring browser carries on with a fresh cookie; its old one has ended too.
    expect(cookie).not.toBeNull();
    expect(await signedIn(admin)).toBe(false);
    admin = { cookie: cookie as string };
    expect(await status(admin)).toMatchObject({ authenticated: true, user: { username: 'admin' } });
  });

  it('keeps an account disabled now signed out when the document has it enabled', async () => {
    const dora = await accountWithRole(t, admin, 'dora', 'viewer', PASSWORD);
    const text = await backup();
    const updated = await call(t, 'PUT', `/api/users/${dora.id}`, { disabled: true }, admin);
    expect(updated.status).toBe(200);
    expect(await signedIn(dora.headers)).toBe(false);

    const { cookie } = await restore(text);
    // Enabled again, as the document says, but the session from before stays ended.
    expect(await signedIn(dora.headers)).toBe(false);
    admin = { cookie: cookie as string };
    const users = await call<{ users: { username: string; disabled: boolean }[] }>(
      t,
      'GET',
      '/api/users',
      undefined,
      admin,
    );
    expect(users.body.users.find((u) => u.username === 'dora')).toMatchObject({ disabled: false });
    await signIn(t, 'dora', PASSWORD);
  });

  it('leaves sessions alone when the document restores no accounts', async () => {
    const document = JSON.parse(await backup()) as Record<string, unknown>;
    delete document.accounts;
    const epoch = await epochOf('admin');
    const { body, cookie } = await restore(JSON.stringify(document));
    expect(body.token_epoch_notice).toBe(false);
    expect(cookie).toBeNull();
    expect(await epochOf('admin')).toBe(epoch);
    expect(await signedIn(admin)).toBe(true);
  });
});
