import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseLogLines, REPO_ROOT, runCli, startServer } from '../support/server-process';
import { testBackend } from '../support/test-database';
import {
  errorLines,
  isRoot,
  NOBODY,
  processIds,
  requireBuiltExecutable,
  Resources,
  startServerAs,
  strictLogLines,
} from './cli-support';

jest.setTimeout(60_000);

const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** Tests that change identity (setuid/setgid, chown to another user) can only run as root. */
const itAsRoot = isRoot() ? it : it.skip;

const onSqlite = testBackend() === 'sqlite';

/**
 * What the start-up error names for a data directory it cannot use: the database file in it on
 * SQLite; on PostgreSQL (no file there) the directory, which holds the restore's safety copies.
 */
const unusablePath = (dataDir: string): string => (onSqlite ? path.join(dataDir, 'monitor.db') : dataDir);

/** The umask a running process has, from /proc (e.g. 0o027). */
function processUmask(pid: number): number {
  const match = /^Umask:\s+([0-7]+)$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no Umask line in /proc/${pid}/status`);
  return parseInt(match[1], 8);
}

describe('monitor serve', () => {
  const resources = new Resources();

  beforeAll(() => requireBuiltExecutable());
  afterEach(() => resources.release());

  describe('start and stop', () => {
    it('answers GET /healthz and, on SIGTERM, exits 0 after closing the database', async () => {
      const server = resources.server(await startServer({ dataDir: resources.dir() }));

      const response = await fetch(`${server.url}/healthz`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toEqual({ status: 'ok', version: PACKAGE_VERSION, uptime: expect.any(Number) });
      expect(body.uptime).toBeGreaterThanOrEqual(0);

      expect(await server.stop('SIGTERM')).toBe(0);
      const messages = strictLogLines(server.output()).map((line) => line.msg);
      expect(messages).toContain('shutting down');
      expect(messages).toContain('stopped');
      expect(messages.indexOf('shutting down')).toBeLessThan(messages.indexOf('database closed'));
      expect(messages.indexOf('database closed')).toBeLessThan(messages.indexOf('stopped'));
      const files = fs.readdirSync(server.dataDir);
      if (onSqlite) {
        expect(files).toContain('monitor.db');
        expect(files).not.toContain('monitor.db-wal');
      } else {
        // Nothing of the database lives in the data directory on PostgreSQL.
        expect(files).toEqual([]);
      }
    });
  });

  describe('logging', () => {
    it('writes only JSON lines with level, time and msg, and exactly one http request line per request', async () => {
      const server = resources.server(await startServer({ dataDir: resources.dir() }));

      for (const target of ['/healthz', '/api/version', '/healthz?probe=1']) {
        const response = await fetch(`${server.url}${target}`, { headers: { 'user-agent': 'cli-test/1' } });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
      expect(await server.stop()).toBe(0);

      const lines = strictLogLines(server.output());
      const requests = lines.filter((line) => line.msg === 'http request');
      expect(requests).toHaveLength(3);
      expect(requests.map((line) => line.path)).toEqual(['/healthz', '/api/version', '/healthz']);
      for (const line of requests) {
        expect(line).toMatchObject({ level: 'info', method: 'GET', status: 200 });
        expect(typeof line.duration_ms).toBe('number');
        expect(line).not.toHaveProperty('user_agent');
      }
    });

    it('adds remote and user_agent to the request line at --log-level debug', async () => {
      const server = resources.server(
        await startServer({ dataDir: resources.dir(), args: ['--log-level', 'debug'] }),
      );

      const response = await fetch(`${server.url}/healthz`, { headers: { 'user-agent': 'cli-test/debug' } });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      expect(await server.stop()).toBe(0);

      const requests = strictLogLines(server.output()).filter((line) => line.msg === 'http request');
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({
        method: 'GET',
        path: '/healthz',
        status: 200,
        remote: '127.0.0.1',
        user_agent: 'cli-test/debug',
      });
      expect(typeof requests[0].duration_ms).toBe('number');
    });
  });

  it('refuses to start a second copy on the same port with one error line', async () => {
    const first = resources.server(await startServer({ dataDir: resources.dir() }));

    const second = await runCli([
      'serve',
      '--listen',
      `127.0.0.1:${first.port}`,
      '--data-dir',
      resources.dir(),
    ]);

    expect(second.code).not.toBe(0);
    expect(second.code).not.toBeNull();
    strictLogLines(second.stdout);
    const errors = errorLines(second.stdout);
    expect(errors).toHaveLength(1);
    expect(errors[0].msg).toContain('already in use');
    expect(errors[0].msg).toContain(`127.0.0.1:${first.port}`);
    expect(parseLogLines(second.stdout).some((line) => line.msg === 'listening')).toBe(false);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  });

  describe('unwritable data directory', () => {
    it('exits 1 with one line naming the database path, the uid and "permission denied"', async () => {
      // As root the child runs as nobody (root could write anywhere); otherwise as ourselves with
      // a read-only parent directory.
      const parent = resources.dir();
      const uid = isRoot() ? NOBODY : (process.getuid?.() ?? -1);
      fs.chmodSync(parent, isRoot() ? 0o755 : 0o555);
      const dataDir = path.join(parent, 'data');

      const result = await runCli(
        ['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir],
        isRoot() ? { uid: NOBODY, gid: NOBODY } : {},
      );
      fs.chmodSync(parent, 0o755);

      expect(result.code).toBe(1);
      strictLogLines(result.stdout);
      const errors = errorLines(result.stdout);
      expect(errors).toHaveLength(1);
      expect(errors[0].msg).toContain(unusablePath(dataDir));
      expect(errors[0].msg).toContain(`uid ${uid}`);
      expect(errors[0].msg).toContain('permission denied');
      expect(fs.existsSync(dataDir)).toBe(false);
    });

    it('exits 1 with one line naming the database path when the parent is a regular file', async () => {
      const parent = resources.dir();
      const file = path.join(parent, 'not-a-directory');
      fs.writeFileSync(file, 'x');
      const dataDir = path.join(file, 'data');

      const result = await runCli(['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir]);

      expect(result.code).toBe(1);
      strictLogLines(result.stdout);
      const errors = errorLines(result.stdout);
      expect(errors).toHaveLength(1);
      expect(errors[0].msg).toContain(unusablePath(dataDir));
    });

    itAsRoot(
      'exits 1 naming the database path when the parent is a regular file (needs root: runs it as uid 65534)',
      async () => {
        const parent = resources.dir();
        fs.chmodSync(parent, 0o755);
        const file = path.join(parent, 'not-a-directory');
        fs.writeFileSync(file, 'x');
        const dataDir = path.join(file, 'data');

        const result = await runCli(['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir], {
          uid: NOBODY,
          gid: NOBODY,
        });

        expect(result.code).toBe(1);
        const errors = errorLines(result.stdout);
        expect(errors).toHaveLength(1);
        expect(errors[0].msg).toContain(unusablePath(dataDir));
        expect(errors[0].msg).toContain(`uid ${NOBODY}`);
      },
    );
  });

  describe('invalid configuration', () => {
    /** Runs serve and returns the single log line it must print; the data dir must not appear. */
    async function failingStart(args: string[]): Promise<string> {
      const dataDir = path.join(resources.dir(), 'data');
      const result = await runCli(['serve', '--data-dir', dataDir, ...args]);
      expect(result.code).toBe(1);
      const lines = strictLogLines(result.stdout);
      expect(lines).toHaveLength(1);
      expect(lines[0].level).toBe('error');
      expect(fs.existsSync(dataDir)).toBe(false);
      return lines[0].msg;
    }

    it('names retention.raw for `retention: { raw: forever }`', async () => {
      const file = path.join(resources.dir(), 'monitor.yml');
      fs.writeFileSync(file, 'retention: { raw: forever }\n');

      const msg = await failingStart(['--listen', '127.0.0.1:0', '--config', file]);

      expect(msg).toContain('retention.raw');
    });

    it('names an unknown top-level key', async () => {
      const file = path.join(resources.dir(), 'monitor.yml');
      fs.writeFileSync(file, 'colour: red\n');

      const msg = await failingStart(['--listen', '127.0.0.1:0', '--config', file]);

      expect(msg).toContain('colour');
    });

    it('names listen for --listen nonsense', async () => {
      const msg = await failingStart(['--listen', 'nonsense']);

      expect(msg).toContain('listen');
      expect(msg).toContain('nonsense');
    });
  });

  describe('identity', () => {
    itAsRoot('drops root to PUID/PGID and applies UMASK (needs root: only root can change uid)', async () => {
      const server = resources.server(
        await startServerAs({
          dataDir: resources.dir(),
          env: { PUID: String(NOBODY), PGID: String(NOBODY), UMASK: '027' },
        }),
      );

      const ids = processIds(server.child.pid as number);
      expect(ids.uid.slice(0, 3)).toEqual([NOBODY, NOBODY, NOBODY]);
      expect(ids.gid.slice(0, 3)).toEqual([NOBODY, NOBODY, NOBODY]);
      expect(processUmask(server.child.pid as number)).toBe(0o027);
      if (onSqlite) {
        const db = fs.statSync(path.join(server.dataDir, 'monitor.db'));
        expect({ uid: db.uid, gid: db.gid }).toEqual({ uid: NOBODY, gid: NOBODY });
        expect(db.mode & 0o007).toBe(0);
      }
      expect(fs.statSync(server.dataDir).uid).toBe(NOBODY);
      const dropped = parseLogLines(server.output()).find((line) => line.msg === 'dropped root privileges');
      expect(dropped).toMatchObject({ uid: NOBODY, gid: NOBODY });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    });

    itAsRoot('keeps uid 0 with PUID=0 and says so (needs root: starts as uid 0)', async () => {
      const server = resources.server(await startServerAs({ dataDir: resources.dir(), env: { PUID: '0' } }));

      const ids = processIds(server.child.pid as number);
      expect(ids.uid.slice(0, 3)).toEqual([0, 0, 0]);
      const lines = strictLogLines(server.output());
      expect(lines.some((line) => line.msg.includes('PUID=0'))).toBe(true);
      expect(lines.some((line) => line.msg === 'dropped root privileges')).toBe(false);
    });

    it('ignores PUID, PGID and UMASK when not started as root, and says so', async () => {
      // As root the child is started as nobody; otherwise it already is not root.
      const dataDir = resources.dir();
      const uid = isRoot() ? NOBODY : (process.getuid?.() ?? -1);
      const gid = isRoot() ? NOBODY : (process.getgid?.() ?? -1);
      if (isRoot()) fs.chownSync(dataDir, NOBODY, NOBODY);

      const server = resources.server(
        await startServerAs({
          dataDir,
          uid,
          gid,
          env: { PUID: '1234', PGID: '1234', UMASK: '077' },
        }),
      );

      expect(processIds(server.child.pid as number).uid.slice(0, 3)).toEqual([uid, uid, uid]);
      const ignored = strictLogLines(server.output()).filter((line) => /ignored/.test(line.msg));
      expect(ignored).toHaveLength(1);
      expect(ignored[0].msg).toMatch(/PUID.*PGID.*UMASK/);
      expect(processUmask(server.child.pid as number)).toBe(processUmask(process.pid));
      expect(fs.statSync(dataDir).uid).toBe(uid);
      if (onSqlite) expect(fs.statSync(path.join(dataDir, 'monitor.db')).uid).toBe(uid);
    });
  });

  it('never logs MONITOR_ADMIN_PASSWORD', async () => {
    const secret = 'Canary-Pa55word-7f3a9c21';
    const server = resources.server(
      await startServerAs({
        dataDir: resources.dir(),
        env: { MONITOR_ADMIN_PASSWORD: secret },
        args: ['--log-level', 'debug'],
      }),
    );
    for (const target of ['/healthz', '/api/version', '/no-such-page']) {
      await (await fetch(`${server.url}${target}`)).arrayBuffer();
    }
    expect(await server.stop()).toBe(0);
    const failed = await runCli(['serve', '--listen', 'nonsense', '--log-level', 'debug'], {
      env: { MONITOR_ADMIN_PASSWORD: secret },
    });

    const everything = [server.output(), server.stderr(), failed.stdout, failed.stderr].join('\n');
    expect(strictLogLines(server.output()).length).toBeGreaterThan(3);
    expect(failed.code).toBe(1);
    expect(everything).not.toContain(secret);
  });

  it('exits non-zero for an unknown subcommand without starting the server', async () => {
    const dir = resources.dir();

    const result = await runCli(['no-such-command'], {
      cwd: dir,
      env: { MONITOR_LISTEN: '127.0.0.1:0', MONITOR_DATA_DIR: path.join(dir, 'data') },
      timeoutMs: 10_000,
    });

    expect(parseLogLines(result.stdout).some((line) => line.msg === 'listening')).toBe(false);
    expect(result.signal).toBeNull();
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
  });
});
