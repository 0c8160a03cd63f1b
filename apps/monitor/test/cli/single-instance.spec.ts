import * as fs from 'node:fs';
import * as path from 'node:path';
import { errorLines, requireBuiltExecutable, Resources, strictLogLines } from './cli-support';
import { parseLogLines, runCli, RunningServer, startServer } from '../support/server-process';
import { itOnPostgres, itOnSqlite } from '../support/test-database';

/**
 * Issue 16: SQLite stays single-instance. `serve` holds `<data-dir>/monitor.lock` for its life, so
 * a second one on the same directory stops with one line; on PostgreSQL several serve one database.
 */
jest.setTimeout(120_000);

const PASSWORD = 'single instance password';
const SQLITE_ONLY = 'one process per SQLite data directory';
const CLUSTER = 'several instances share one PostgreSQL database';

const refusalPattern = (dataDir: string, pid: number | string) =>
  new RegExp(
    `^another monitor is already running on data directory ${escape(path.resolve(dataDir))} \\(pid ${pid}, since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\): SQLite allows one process; use PostgreSQL \\(database_url\\) to run several instances$`,
  );
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function apiKey(server: RunningServer): Promise<Record<string, string>> {
  const login = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const cookie = login.headers.getSetCookie()[0].split(';')[0];
  const made = await fetch(`${server.url}/api/api-key`, { method: 'POST', headers: { cookie } });
  return { 'x-api-key': ((await made.json()) as { api_key: string }).api_key };
}

describe('one serve per data directory on SQLite, several on PostgreSQL', () => {
  const resources = new Resources();
  beforeAll(() => requireBuiltExecutable());
  afterEach(() => resources.release());

  itOnSqlite(SQLITE_ONLY)(
    'a second serve on the same directory exits 1 with one line naming the holder; the first keeps serving',
    async () => {
      const dataDir = resources.dir('monitor-single-');
      const first = resources.server(await startServer({ dataDir }));

      const second = await runCli(['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir], {
        env: { MONITOR_ADMIN_PASSWORD: PASSWORD },
      });

      expect(second.code).toBe(1);
      strictLogLines(second.stdout);
      expect(errorLines(second.stdout)).toHaveLength(1);
      expect(parseLogLines(second.stdout).some((line) => line.msg === 'listening')).toBe(false);
      expect(errorLines(second.stdout)[0].msg).toMatch(refusalPattern(dataDir, first.child.pid!));
      expect(second.stderr).toBe('');
      // It stopped before touching the database: the password it was given made no account.
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
      const login = await fetch(`${first.url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: PASSWORD }),
      });
      expect(login.status).toBe(401);
      expect(errorLines(first.output())).toEqual([]);
    },
  );

  itOnSqlite(SQLITE_ONLY)(
    'after the holder is killed with SIGKILL a new serve starts at once and names itself',
    async () => {
      const dataDir = resources.dir('monitor-single-');
      const first = await startServer({ dataDir });
      expect(await first.stop('SIGKILL')).toBeNull();

      const next = resources.server(await startServer({ dataDir }));
      expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
      const refused = await runCli(['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir]);
      expect(refused.code).toBe(1);
      expect(errorLines(refused.stdout)[0].msg).toMatch(refusalPattern(dataDir, next.child.pid!));
    },
  );

  itOnSqlite(SQLITE_ONLY)(
    'after a clean stop (SIGTERM) the next serve starts; the lock file stays and nothing else is left',
    async () => {
      const dataDir = resources.dir('monitor-single-');
      const first = await startServer({ dataDir });
      expect(await first.stop()).toBe(0);
      expect(fs.readdirSync(dataDir).sort()).toEqual(['monitor.db', 'monitor.lock']);
      resources.server(await startServer({ dataDir }));
    },
  );

  itOnSqlite(SQLITE_ONLY)(
    'doctor, healthcheck and version work while serve holds the directory, and backup and restore through it',
    async () => {
      const dataDir = resources.dir('monitor-single-');
      const server = resources.server(
        await startServer({ dataDir, env: { MONITOR_ADMIN_PASSWORD: PASSWORD } }),
      );

      const doctor = await runCli(['doctor', '--json', '--data-dir', dataDir]);
      expect([doctor.code, doctor.stderr]).toEqual([0, '']);
      expect((JSON.parse(doctor.stdout) as { ok: boolean }).ok).toBe(true);
      const health = await runCli(['healthcheck', '--url', `${server.url}/healthz`]);
      expect(health.code).toBe(0);
      expect((await runCli(['version'])).code).toBe(0);

      // The restore's worker thread opens the database inside the holder: it must not trip over the lock.
      const headers = await apiKey(server);
      const backup = await fetch(`${server.url}/api/backup`, { headers });
      expect(backup.status).toBe(200);
      const restored = await fetch(`${server.url}/api/restore`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: await backup.text(),
      });
      expect(restored.status).toBe(200);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(parseLogLines(server.output()).filter((l) => l.level === 'error')).toEqual([]);

      // Still the only one.
      const refused = await runCli(['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir]);
      expect(errorLines(refused.stdout)[0].msg).toMatch(refusalPattern(dataDir, server.child.pid!));
    },
  );

  itOnPostgres(CLUSTER)(
    'two serves with the same data directory and different instance names both start and answer',
    async () => {
      const dataDir = resources.dir('monitor-cluster-');
      const servers = [];
      for (const name of ['one', 'two']) {
        servers.push(
          resources.server(
            await startServer({ dataDir, env: { MONITOR_INSTANCE_NAME: `single-instance-${name}` } }),
          ),
        );
      }
      for (const server of servers) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(fs.existsSync(path.join(dataDir, 'monitor.lock'))).toBe(false);
    },
  );
});
