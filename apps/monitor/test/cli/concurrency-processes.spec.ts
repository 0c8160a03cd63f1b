import * as fs from 'node:fs';
import * as path from 'node:path';
import { readStoredRows } from '../api/support/concurrency';
import { parseLogLines, RunningServer, startServer, tempDir } from '../support/server-process';
import { describeOnPostgres, itOnPostgres, testBackend } from '../support/test-database';

/**
 * The only-once rules hold across processes: two built servers on one database receive conflicting
 * writes at the same moment. The database decides (one winner, the others 409); a rule checked by a
 * read before the write would answer 500 or let both through. Since issue 16 only PostgreSQL runs
 * several processes on one database: a second serve on a SQLite data directory refuses to start.
 */
jest.setTimeout(180_000);

const PASSWORD = 'two processes password';
const ROUNDS = 8;

type Answer = { status: number; body: Record<string, unknown> };

async function send(
  server: RunningServer,
  method: string,
  url: string,
  cookie: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${server.url}${url}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function signIn(server: RunningServer, username: string, password = PASSWORD): Promise<string> {
  const response = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status}`);
  return response.headers.getSetCookie()[0].split(';')[0];
}

const SEVERAL = 'SQLite allows one serve per data directory (issue 16)';

/** Distinct instance names: instances of one cluster may not share a name. */
const named = (n: number, env: Record<string, string> = {}) => ({
  ...env,
  MONITOR_INSTANCE_NAME: `process-${n}`,
});

const REFUSAL =
  /^another monitor is already running on data directory .*: SQLite allows one process; use PostgreSQL \(database_url\) to run several instances$/;

const counts = (answers: Answer[]) => {
  const byStatus: Record<number, number> = {};
  for (const { status } of answers) byStatus[status] = (byStatus[status] ?? 0) + 1;
  return byStatus;
};

/** The first column of each stored row, read through a connection of the test's own (either backend). */
const column = async (dataDir: string, query: string): Promise<unknown[]> =>
  (await readStoredRows<Record<string, unknown>>(dataDir, query)).map((row) => Object.values(row)[0]);

describeOnPostgres(SEVERAL)('only-once rules across two processes on one database', () => {
  let dataDir: string;
  let servers: RunningServer[];
  let cookies: string[];

  beforeAll(async () => {
    dataDir = tempDir('monitor-two-processes-');
    servers = [await startServer({ dataDir, env: named(0, { MONITOR_ADMIN_PASSWORD: PASSWORD }) })];
    servers.push(await startServer({ dataDir, env: named(1) }));
    cookies = await Promise.all(servers.map((server) => signIn(server, 'admin')));
  });

  afterAll(async () => {
    for (const server of servers ?? []) await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Three requests to each server at once. */
  const burst = (make: (n: number) => [string, string, unknown?]) =>
    Promise.all(
      Array.from({ length: 6 }, (_, n) => {
        const [method, url, body] = make(n);
        return send(servers[n % 2], method, url, cookies[n % 2], body);
      }),
    );

  it('a username created through both at once exists once; the others answer 409', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await burst(() => [
        'POST',
        '/api/users',
        { username: `user${round}`, password: PASSWORD, role: 'viewer' },
      ]);
      expect(counts(answers)).toEqual({ 201: 1, 409: 5 });
    }
    expect(
      (await column(dataDir, `SELECT count(*) FROM users WHERE substr(username, 1, 4) = 'user'`))[0],
    ).toBe(ROUNDS);
  });

  it('a site name created through both at once exists once; the others answer 409', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await burst(() => ['POST', '/api/sites', { name: `site${round}` }]);
      expect(counts(answers)).toEqual({ 201: 1, 409: 5 });
    }
    expect((await column(dataDir, 'SELECT count(*) FROM sites'))[0]).toBe(ROUNDS);
  });

  it('API key rotations through both at once leave exactly one working key, one of the answers', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await burst(() => ['POST', '/api/api-key']);
      expect(counts(answers)).toEqual({ 200: 6 });
      const shown = (await send(servers[0], 'GET', '/api/settings', cookies[0])).body.api_key;
      expect(answers.map((a) => a.body.api_key)).toContain(shown);
      const working = [];
      for (const answer of answers) {
        const key = answer.body.api_key as string;
        const res = await fetch(`${servers[round % 2].url}/api/settings`, { headers: { 'x-api-key': key } });
        if (res.status === 200) working.push(key);
      }
      expect(working).toEqual([shown]);
    }
  });

  it('two administrators demoting each other through different processes: one wins', async () => {
    const made = await send(servers[0], 'POST', '/api/users', cookies[0], {
      username: 'second',
      password: PASSWORD,
      role: 'admin',
    });
    expect(made.status).toBe(201);
    const ids = [
      Number((await column(dataDir, `SELECT id FROM users WHERE username = 'admin'`))[0]),
      Number(made.body.id),
    ];
    const sessions = [cookies[0], await signIn(servers[1], 'second')];
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all([
        send(servers[0], 'PUT', `/api/users/${ids[1]}`, sessions[0], { role: 'operator' }),
        send(servers[1], 'PUT', `/api/users/${ids[0]}`, sessions[1], { role: 'operator' }),
      ]);
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const answer of answers) expect([200, 403, 409]).toContain(answer.status);
      const admins = (await column(
        dataDir,
        `SELECT id FROM users WHERE role = 'admin' AND disabled = FALSE`,
      )) as number[];
      expect(admins).toHaveLength(1);
      const keeper = ids.indexOf(admins[0]);
      const restored = await send(servers[keeper], 'PUT', `/api/users/${ids[1 - keeper]}`, sessions[keeper], {
        role: 'admin',
      });
      expect(restored.status).toBe(200);
    }
  });

  it('reorders through both at once leave one of the orders sent', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const made = await send(servers[0], 'POST', '/api/sensors', cookies[0], {
        name: `s${i}`,
        type: 'tcp',
        target: '127.0.0.1:9',
        enabled: false,
      });
      ids.push(Number(made.body.id));
    }
    const orders = Array.from({ length: 6 }, (_, k) => ids.map((_, i) => ids[(i + k) % ids.length]));
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await burst((n) => ['PUT', '/api/sensor-order', { ids: orders[n] }]);
      expect(counts(answers)).toEqual({ 200: 6 });
      const stored = await column(dataDir, 'SELECT id FROM sensors ORDER BY sort_order, id');
      expect(orders).toContainEqual(stored);
    }
  });
});

describe('processes starting at once on one data directory, with a configuration file', () => {
  const FILE = `sites:
  - { name: HQ, kind: local }
channels:
  - { name: hook, type: webhook, config: { url: "http://127.0.0.1:9/hook" } }
sensors:
  - { name: homepage, type: tcp, target: "127.0.0.1:9", enabled: false, site: HQ, channels: [hook] }
maintenance:
  - { name: night, starts_at: "2030-01-01T00:00:00Z", ends_at: "2030-01-01T01:00:00Z", sensors: [homepage] }
`;

  it(
    testBackend() === 'postgres'
      ? 'four processes starting on one new database all start: none takes it for a foreign or locked one'
      : 'four processes starting on one new data directory: exactly one starts, the others refuse with one line',
    async () => {
      for (let round = 0; round < 5; round++) {
        const dataDir = tempDir('monitor-four-starts-');
        const started = await Promise.allSettled(
          [0, 1, 2, 3].map((n) => startServer({ dataDir, env: named(n), timeoutMs: 60_000 })),
        );
        try {
          const outcomes = started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started'));
          if (testBackend() === 'postgres') {
            expect(outcomes).toEqual(Array(4).fill('started'));
            continue;
          }
          expect(outcomes.filter((o) => o === 'started')).toHaveLength(1);
          for (const outcome of outcomes.filter((o) => o !== 'started')) {
            expect(outcome).toMatch(/^Error: server exited with 1 before listening:/);
            const errors = parseLogLines(outcome.split('\n').slice(1).join('\n')).filter(
              (line) => line.level === 'error',
            );
            expect(errors.map((line) => line.msg)).toEqual([expect.stringMatching(REFUSAL)]);
          }
        } finally {
          for (const s of started) if (s.status === 'fulfilled') await s.value.stop();
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      }
    },
  );

  const onPostgres = itOnPostgres(SEVERAL);
  for (const [name, existing] of [
    ['a new database (migrations race too)', false],
    ['an existing database', true],
  ] as const)
    onPostgres(`on ${name} both start, and every declared row exists once`, async () => {
      for (let round = 0; round < 3; round++) {
        const dataDir = tempDir('monitor-two-starts-');
        if (existing) await (await startServer({ dataDir })).stop();
        const config = path.join(dataDir, 'monitor.yaml');
        fs.writeFileSync(config, FILE);
        const started = await Promise.allSettled(
          [0, 1].map((n) =>
            startServer({ dataDir, env: named(n), args: ['--config', config], timeoutMs: 60_000 }),
          ),
        );
        try {
          expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started'))).toEqual([
            'started',
            'started',
          ]);
          for (const table of ['sites', 'channels', 'sensors', 'maintenance_windows'])
            expect([table, (await column(dataDir, `SELECT count(*) FROM ${table}`))[0]]).toEqual([table, 1]);
        } finally {
          for (const s of started) if (s.status === 'fulfilled') await s.value.stop();
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      }
    });
});
