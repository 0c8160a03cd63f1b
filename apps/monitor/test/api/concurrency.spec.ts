import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SessionInfo, UserList } from '@monitor/contracts';
import { generate } from 'otplib';
import { MutableClock } from './support/clock';
import { expectErrorShapes, statusCounts, readStoredRows, together } from './support/concurrency';
import { accountWithRole, ADMIN, call, Headers, setupAdmin } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

/**
 * "Only if none exists yet" rules of accounts and sign-in under parallel requests through the real
 * app (installation resources are in concurrency-resources.spec.ts): exactly one winner, the
 * others refused with 4xx `{error}`, and the stored rows as one winner alone would leave them.
 */
jest.setTimeout(120_000);

const PASSWORD = 'long enough password';

const activeAdmins = (dataDir: string): Promise<{ id: number; username: string }[]> =>
  readStoredRows(dataDir, `SELECT id, username FROM users WHERE role = 'admin' AND disabled = FALSE`);

describe('first-run setup happens once', () => {
  it('of fifty parallel setups exactly one creates an administrator; the rest answer 409', async () => {
    const t = await startTestApp({ startScheduler: false });
    try {
      const answers = await together(
        t,
        Array.from({ length: 50 }, (_, i) => ({
          method: 'POST',
          path: '/api/setup',
          body: { username: `first${i}`, password: PASSWORD, mode: 'simple' },
        })),
      );
      expect(statusCounts(answers)).toEqual({ 200: 1, 409: 49 });
      expectErrorShapes(answers);
      const winner = answers.findIndex((a) => a.status === 200);
      expect(await readStoredRows(t.dataDir, 'SELECT username, role FROM users')).toEqual([
        { username: `first${winner}`, role: 'admin' },
      ]);
    } finally {
      await t.close();
    }
  });

  it('two processes on one data directory, ten setups each at once: one account in all', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-once-'));
    const apps = [await startTestApp({ startScheduler: false, dataDir })];
    apps.push(await startTestApp({ startScheduler: false, dataDir }));
    try {
      const answers = (
        await Promise.all(
          apps.map((app, n) =>
            together(
              app,
              Array.from({ length: 10 }, (_, i) => ({
                method: 'POST',
                path: '/api/setup',
                body: { username: `p${n}u${i}`, password: PASSWORD, mode: 'simple' },
              })),
            ),
          ),
        )
      ).flat();
      expect(statusCounts(answers)).toEqual({ 200: 1, 409: 19 });
      expectErrorShapes(answers);
      expect(await readStoredRows(dataDir, 'SELECT count(*) AS n FROM users')).toEqual([{ n: 1 }]);
    } finally {
      for (const app of apps) await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('MONITOR_ADMIN_PASSWORD at start and a setup at the same time leave one account', async () => {
    for (let round = 0; round < 3; round++) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-once-'));
      const running = await startTestApp({ startScheduler: false, dataDir });
      try {
        // A second process on the same data directory starts with the bootstrap password.
        const [second, setups] = await Promise.all([
          startTestApp({ startScheduler: false, dataDir, env: { MONITOR_ADMIN_PASSWORD: PASSWORD } }),
          together(
            running,
            Array.from({ length: 5 }, (_, i) => ({
              method: 'POST',
              path: '/api/setup',
              body: { username: `setup${i}`, password: PASSWORD, mode: 'simple' },
            })),
          ),
        ]);
        await second.close();
        const accounts = await readStoredRows<{ username: string }>(dataDir, 'SELECT username FROM users');
        expect(accounts).toHaveLength(1);
        const setupWon = setups.filter((a) => a.status === 200).length;
        expect(setupWon + (accounts[0].username === 'admin' ? 1 : 0)).toBe(1);
        expect(setups.filter((a) => a.status !== 200).every((a) => a.status === 409)).toBe(true);
      } finally {
        await running.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }
  });
});

describe('the last active administrator stays', () => {
  let t: TestApp;
  let a: { id: number; headers: Headers };
  let b: { id: number; headers: Headers };

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false });
    const headers = await setupAdmin(t);
    const session = await call<SessionInfo>(t, 'GET', '/api/session', undefined, headers);
    a = { id: session.body.user!.id, headers };
    b = await accountWithRole(t, headers, 'second', 'admin');
  });

  afterAll(() => t.close());

  /** After a round the survivor makes the other an active administrator again (a new one if deleted). */
  async function restore(): Promise<void> {
    const [survivor] = await activeAdmins(t.dataDir);
    const [keeper, other] = survivor.id === a.id ? [a, b] : [b, a];
    const exists =
      (await readStoredRows(t.dataDir, 'SELECT id FROM users WHERE id = ?', other.id)).length > 0;
    if (exists) {
      const res = await call(
        t,
        'PUT',
        `/api/users/${other.id}`,
        { role: 'admin', disabled: false },
        keeper.headers,
      );
      expect(res.status).toBe(200);
    } else {
      const made = await accountWithRole(t, keeper.headers, `admin${Date.now()}`, 'admin');
      Object.assign(other, made);
    }
  }

  type Move = (
    self: typeof a,
    other: typeof a,
  ) => { method: string; path: string; body?: unknown; headers: Headers };
  const demote: Move = (self, other) => ({
    method: 'PUT',
    path: `/api/users/${other.id}`,
    body: { role: 'operator' },
    headers: self.headers,
  });
  const disable: Move = (self, other) => ({
    method: 'PUT',
    path: `/api/users/${other.id}`,
    body: { disabled: true },
    headers: self.headers,
  });
  const remove: Move = (self, other) => ({
    method: 'DELETE',
    path: `/api/users/${other.id}`,
    headers: self.headers,
  });
  const demoteSelf: Move = (self) => ({
    method: 'PUT',
    path: `/api/users/${self.id}`,
    body: { role: 'viewer' },
    headers: self.headers,
  });

  it.each([
    ['demote each other', demote, demote],
    ['disable each other', disable, disable],
    ['delete each other', remove, remove],
    ['one deletes, the other demotes', remove, demote],
    ['one demotes itself while demoting the other', demoteSelf, demote],
  ] as [string, Move, Move][])(
    'two administrators who %s at once: one wins, the other is refused',
    async (_name, first, second) => {
      for (let round = 0; round < 3; round++) {
        // Self-demotion pairs with the same administrator demoting the other; else each acts on the other.
        const [actor, target] = first === demoteSelf ? [a, b] : [b, a];
        const answers = await together(t, [first(a, b), second(actor, target)]);
        expect(await activeAdmins(t.dataDir)).toHaveLength(1);
        expect(answers.filter((x) => x.status === 200)).toHaveLength(1);
        // The loser is refused by the rule (409) or, when the winner already changed its account, at the door.
        for (const answer of answers.filter((x) => x.status !== 200))
          expect([401, 403, 409]).toContain(answer.status);
        expectErrorShapes(answers);
        await restore();
      }
    },
  );
});

describe('usernames are unique under parallel creates', () => {
  it('ten parallel creates of one name (in any case) make one account; the rest answer 409 naming it', async () => {
    const t = await startTestApp({ startScheduler: false });
    try {
      const admin = await setupAdmin(t);
      const names = ['bob', 'Bob', 'BOB', 'bOb', 'boB', 'bob', 'BoB', 'BOb', 'bob', 'Bob'];
      const answers = await together<{ error?: string }>(
        t,
        names.map((username) => ({
          method: 'POST',
          path: '/api/users',
          body: { username, password: PASSWORD, role: 'viewer' },
          headers: admin,
        })),
      );
      expect(statusCounts(answers)).toEqual({ 201: 1, 409: 9 });
      expectErrorShapes(answers);
      for (const answer of answers.filter((x) => x.status === 409))
        expect(answer.body.error).toMatch(/account named "bob"/i);
      const users = (await call<UserList>(t, 'GET', '/api/users', undefined, admin)).body.users;
      expect(users.map((u) => u.username.toLowerCase()).sort()).toEqual(['admin', 'bob']);
    } finally {
      await t.close();
    }
  });
});

describe('the login throttle', () => {
  it('twenty parallel wrong passwords from one address: at most five are tried, the rest answer 429', async () => {
    const t = await startTestApp({ startScheduler: false });
    try {
      await setupAdmin(t);
      const answers = await together(
        t,
        Array.from({ length: 20 }, () => ({
          method: 'POST',
          path: '/api/login',
          body: { username: ADMIN.username, password: 'wrong password' },
        })),
      );
      expectErrorShapes(answers);
      expect(answers.filter((a) => a.status === 401).length).toBeLessThanOrEqual(5);
      expect(answers.filter((a) => a.status !== 401).every((a) => a.status === 429)).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe('second factor codes work once', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let secret: string;

  const code = () => generate({ secret, epoch: Math.floor(clock.now() / 1000) });
  const challenges = async (n: number): Promise<string[]> => {
    const list: string[] = [];
    for (let i = 0; i < n; i++)
      list.push((await call<{ challenge: string }>(t, 'POST', '/api/login', ADMIN)).body.challenge);
    return list;
  };

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    secret = (await call<{ secret: string }>(t, 'POST', '/api/me/totp/start', undefined, admin)).body.secret;
  });

  afterAll(() => t.close());

  it('five parallel confirmations with one code: exactly one enables the second factor', async () => {
    const now = await code();
    const answers = await together<{ recovery_codes?: string[] }>(
      t,
      Array.from({ length: 5 }, () => ({
        method: 'POST',
        path: '/api/me/totp/confirm',
        body: { code: now },
        headers: admin,
      })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expectErrorShapes(answers);
    const codes = answers.find((a) => a.status === 200)!.body.recovery_codes!;
    const stored = await readStoredRows<{ n: number }>(t.dataDir, 'SELECT count(*) AS n FROM recovery_codes');
    expect(stored).toEqual([{ n: 8 }]);
    // The recovery codes of the winning answer are the stored ones.
    clock.advance(61_000);
    const [challenge] = await challenges(1);
    expect((await call(t, 'POST', '/api/login/totp', { challenge, code: codes[0] })).status).toBe(200);
  });

  it('one recovery code sent five times at once signs in once', async () => {
    clock.advance(61_000);
    const recovery = (
      await call<{ recovery_codes: string[] }>(
        t,
        'POST',
        '/api/me/totp/recovery',
        { password: ADMIN.password },
        admin,
      )
    ).body.recovery_codes;
    const answers = await together(
      t,
      (await challenges(5)).map((challenge) => ({
        method: 'POST',
        path: '/api/login/totp',
        body: { challenge, code: recovery[0] },
      })),
    );
    expect(statusCounts(answers)).toEqual({ 200: 1, 401: 4 });
    expect(answers.filter((a) => a.status === 200).length).toBe(1);
    expect(
      await readStoredRows(t.dataDir, 'SELECT count(*) AS n FROM recovery_codes WHERE used_at IS NOT NULL'),
    ).toEqual([{ n: 1 }]);
  });

  it('one TOTP code sent five times at once signs in once', async () => {
    clock.advance(61_000);
    const now = await code();
    const answers = await together(
      t,
      (await challenges(5)).map((challenge) => ({
        method: 'POST',
        path: '/api/login/totp',
        body: { challenge, code: now },
      })),
    );
    expect(statusCounts(answers)).toEqual({ 200: 1, 401: 4 });
  });
});

describe('second factor enrolment happens once', () => {
  const codeAt = (secret: string, clock: MutableClock, steps: number) =>
    generate({ secret, epoch: Math.floor(clock.now() / 1000) + steps * 30 });

  it('two confirmations with codes of two valid steps at once: one enables, and its recovery codes are the stored ones', async () => {
    const clock = new MutableClock();
    const t = await startTestApp({ startScheduler: false, clock });
    try {
      const admin = await setupAdmin(t);
      for (let round = 0; round < 3; round++) {
        const { secret } = (await call<{ secret: string }>(t, 'POST', '/api/me/totp/start', undefined, admin))
          .body;
        const codes = [await codeAt(secret, clock, -1), await codeAt(secret, clock, 0)];
        const answers = await together<{ recovery_codes?: string[] }>(
          t,
          codes.map((code) => ({
            method: 'POST',
            path: '/api/me/totp/confirm',
            body: { code },
            headers: admin,
          })),
        );
        expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
        expectErrorShapes(answers);
        const issued = answers.find((a) => a.status === 200)!.body.recovery_codes!;
        const stored = await readStoredRows<{ code_hash: string }>(
          t.dataDir,
          'SELECT code_hash FROM recovery_codes ORDER BY id',
        );
        expect(stored.map((r) => r.code_hash).sort()).toEqual(
          issued.map((c) => createHash('sha256').update(c.replace(/-/g, '')).digest('hex')).sort(),
        );
        clock.advance(61_000);
        expect(
          (await call(t, 'POST', '/api/me/totp/disable', { password: ADMIN.password }, admin)).status,
        ).toBe(200);
      }
    } finally {
      await t.close();
    }
  });

  it('a restarted enrolment racing its confirmation never replaces the secret that was turned on', async () => {
    const clock = new MutableClock();
    const t = await startTestApp({ startScheduler: false, clock });
    try {
      const admin = await setupAdmin(t);
      for (let round = 0; round < 4; round++) {
        const { secret } = (await call<{ secret: string }>(t, 'POST', '/api/me/totp/start', undefined, admin))
          .body;
        const code = await codeAt(secret, clock, 0);
        const answers = await together(t, [
          { method: 'POST', path: '/api/me/totp/confirm', body: { code }, headers: admin },
          { method: 'POST', path: '/api/me/totp/start', headers: admin },
        ]);
        expectErrorShapes(answers);
        const [row] = await readStoredRows<{ totp_enabled: number; totp_secret: string }>(
          t.dataDir,
          'SELECT totp_enabled, totp_secret FROM users',
        );
        if (answers[0].status === 200) {
          expect(answers[1].status).toBe(409);
          expect(row).toEqual({ totp_enabled: 1, totp_secret: secret });
          clock.advance(61_000);
          expect(
            (await call(t, 'POST', '/api/me/totp/disable', { password: ADMIN.password }, admin)).status,
          ).toBe(200);
        } else expect(row.totp_enabled).toBe(0);
      }
    } finally {
      await t.close();
    }
  });

  it('turning the second factor off while regenerating recovery codes never leaves codes without it', async () => {
    const clock = new MutableClock();
    const t = await startTestApp({ startScheduler: false, clock });
    try {
      const admin = await setupAdmin(t);
      for (let round = 0; round < 4; round++) {
        const { secret } = (await call<{ secret: string }>(t, 'POST', '/api/me/totp/start', undefined, admin))
          .body;
        const confirm = await call(
          t,
          'POST',
          '/api/me/totp/confirm',
          { code: await codeAt(secret, clock, 0) },
          admin,
        );
        expect(confirm.status).toBe(200);
        const body = { password: ADMIN.password };
        const answers = await together(t, [
          { method: 'POST', path: '/api/me/totp/recovery', body, headers: admin },
          { method: 'POST', path: '/api/me/totp/disable', body, headers: admin },
        ]);
        expect(answers[1].status).toBe(200);
        expect([200, 409]).toContain(answers[0].status);
        expectErrorShapes(answers);
        expect(await readStoredRows(t.dataDir, 'SELECT totp_enabled FROM users')).toEqual([
          { totp_enabled: 0 },
        ]);
        expect(await readStoredRows(t.dataDir, 'SELECT count(*) AS n FROM recovery_codes')).toEqual([
          { n: 0 },
        ]);
        clock.advance(61_000);
      }
    } finally {
      await t.close();
    }
  });
});
