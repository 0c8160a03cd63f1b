import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ProbeRequest } from '../probe';
import { stop } from '../testing/net';
import { NOBODY, runProbeAs } from '../testing/run-as';
import { DockerProbe } from './docker.probe';

interface Seen {
  method: string;
  url: string;
  bodyBytes: number;
  headers: http.IncomingHttpHeaders;
}

const CONTAINERS: Record<string, object> = {
  web: { Id: 'a1b2c3', Name: '/web', RestartCount: 2, State: { Status: 'running', Running: true } },
  old: {
    Id: 'd4e5f6',
    Name: '/old',
    RestartCount: 5,
    State: { Status: 'exited', Running: false, ExitCode: 1 },
  },
  paused: { Name: '/paused', RestartCount: 0, State: { Status: 'paused', Running: true, Paused: true } },
  sick: {
    Name: '/sick',
    RestartCount: 0,
    State: { Status: 'running', Running: true, Health: { Status: 'unhealthy' } },
  },
  'my.app_1': { Name: '/my.app_1', RestartCount: 0, State: { Status: 'restarting', Running: true } },
};

/** Stands in for the engine on a unix socket and records every request it gets. */
function fakeEngine(seen: Seen[]): http.Server {
  return http.createServer((req, res) => {
    let bodyBytes = 0;
    req.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', bodyBytes, headers: req.headers });
      const match = /^\/containers\/([^/]+)\/json$/.exec(req.url ?? '');
      const name = match ? decodeURIComponent(match[1]) : '';
      if (name === 'hang') return; // never answers
      if (name === 'boom') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"engine on fire"}');
        return;
      }
      const container = CONTAINERS[name];
      if (!container) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(`{"message":"No such container: ${name}"}`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(container));
    });
  });
}

describe('DockerProbe', () => {
  const probe = new DockerProbe();
  const seen: Seen[] = [];
  const engine = fakeEngine(seen);
  let dir = '';
  let socket = '';

  function run(target: string, options: ProbeRequest['options'] = { socket }, timeoutMs = 3000) {
    return probe.run({ target, options, timeoutMs, signal: new AbortController().signal });
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docker-probe-'));
    socket = join(dir, 'docker.sock');
    engine.listen(socket);
    await once(engine, 'listening');
  });
  afterAll(async () => {
    await probe.close();
    await stop(engine);
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    seen.length = 0;
  });

  it('is up when the container runs, and makes exactly one read-only GET', async () => {
    await expect(run('web')).resolves.toEqual({
      success: true,
      message: 'web is running (restarts: 2)',
      latencyMs: expect.any(Number),
    });
    expect(seen).toEqual([
      { method: 'GET', url: '/containers/web/json', bodyBytes: 0, headers: expect.any(Object) },
    ]);
    expect(seen[0].headers['content-length']).toBeUndefined();
    expect(seen[0].headers['transfer-encoding']).toBeUndefined();
  });

  it('is down for any other state, naming state and restart count', async () => {
    await expect(run('old')).resolves.toMatchObject({
      success: false,
      message: 'old is exited (restarts: 5)',
    });
    await expect(run('paused')).resolves.toMatchObject({
      success: false,
      message: 'paused is paused (restarts: 0)',
    });
    await expect(run('my.app_1')).resolves.toMatchObject({
      success: false,
      message: 'my.app_1 is restarting (restarts: 0)',
    });
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /containers/old/json',
      'GET /containers/paused/json',
      'GET /containers/my.app_1/json',
    ]);
  });

  it('mentions health but judges by state', async () => {
    await expect(run('sick')).resolves.toMatchObject({
      success: true,
      message: 'sick is running (restarts: 0, health: unhealthy)',
    });
  });

  it('reports a container that does not exist', async () => {
    await expect(run('ghost')).resolves.toMatchObject({
      success: false,
      message: 'container "ghost" not found',
    });
    expect(seen).toHaveLength(1);
  });

  it('accepts a leading slash and escapes the name into one path segment', async () => {
    await expect(run('/web')).resolves.toMatchObject({ success: true });
    await expect(run('a b/../../x?all=1')).resolves.toMatchObject({ success: false });
    expect(seen.map((r) => r.url)).toEqual([
      '/containers/web/json',
      '/containers/a%20b%2F..%2F..%2Fx%3Fall%3D1/json',
    ]);
  });

  it('reports an engine error', async () => {
    await expect(run('boom')).resolves.toMatchObject({
      success: false,
      message: 'docker engine answered HTTP 500',
    });
  });

  it('times out against an engine that never answers', async () => {
    const started = Date.now();
    const outcome = await run('hang', { socket }, 1000);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(outcome).toEqual({ success: false, message: 'timed out after 1 s', latencyMs: null });
    expect(seen).toHaveLength(1);
  });

  it('reports a missing socket without connecting', async () => {
    const missing = join(dir, 'nope.sock');
    await expect(run('web', { socket: missing })).resolves.toEqual({
      success: false,
      message: `docker socket ${missing} not found`,
      latencyMs: null,
    });
    await expect(run('web', { socket: join(dir, 'no-dir', 'docker.sock') })).resolves.toMatchObject({
      message: `docker socket ${join(dir, 'no-dir', 'docker.sock')} not found`,
    });
    expect(seen).toHaveLength(0);
  });

  it('reports a path that is not a socket', async () => {
    const file = join(dir, 'plain-file');
    await writeFile(file, '');
    await expect(run('web', { socket: file })).resolves.toMatchObject({
      success: false,
      message: `docker socket ${file} is not a socket`,
    });
  });

  it('reports a socket nobody listens on', async () => {
    // A listener killed outright leaves its socket file behind.
    const stale = join(dir, 'stale.sock');
    await promisify(execFile)(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]).catch(() => undefined);
    await expect(run('web', { socket: stale })).resolves.toMatchObject({
      success: false,
      message: `docker socket ${stale} refused the connection (is the engine running?)`,
    });
  });

  it('reports an unreadable socket as such, distinct from a missing one', async () => {
    const locked = join(dir, 'locked');
    const lockedEngine = fakeEngine(seen);
    await mkdir(locked);
    const lockedSocket = join(locked, 'docker.sock');
    lockedEngine.listen(lockedSocket);
    await once(lockedEngine, 'listening');
    try {
      await chmod(dir, 0o755); // the directory stays searchable: only the socket's mode is in the way
      await chmod(locked, 0o755);
      await chmod(lockedSocket, 0o000);
      const request = { target: 'web', options: { socket: lockedSocket }, timeoutMs: 3000 };
      // Root ignores file modes, so as root the check runs in a child process as nobody.
      const outcome =
        process.getuid?.() === 0
          ? await runProbeAs(NOBODY, require.resolve('./docker.probe'), 'DockerProbe', request)
          : await probe.run({ ...request, signal: new AbortController().signal });
      expect(outcome).toEqual({
        success: false,
        message: `docker socket ${lockedSocket} not readable (permission denied)`,
        latencyMs: null,
      });
      expect(seen).toHaveLength(0);

      // With the mode opened the same socket answers (as that same user).
      await chmod(lockedSocket, 0o666);
      const opened =
        process.getuid?.() === 0
          ? await runProbeAs(NOBODY, require.resolve('./docker.probe'), 'DockerProbe', request)
          : await probe.run({ ...request, signal: new AbortController().signal });
      expect(opened).toMatchObject({ success: true, message: 'web is running (restarts: 2)' });
      expect(seen).toHaveLength(1);
    } finally {
      await stop(lockedEngine);
    }
  }, 30_000);
});

describe('DockerProbe.validate', () => {
  const probe = new DockerProbe();

  it.each(['web', 'my.app_1', '/web', 'a1b2c3d4e5f6', 'f'.repeat(64)])('accepts %s', (target) => {
    expect(probe.validate(target, { socket: '/run/docker.sock', timeout: 5 })).toBeNull();
  });

  it.each([
    ['', {}, 'target must be a container name or id'],
    ['a b', {}, 'target must be a container name or id'],
    ['../x', {}, 'target must be a container name or id'],
    ['web', { socket: 'docker.sock' }, 'options.socket must be an absolute path to the engine socket'],
    ['web', { socket: 5 }, 'options.socket must be an absolute path to the engine socket'],
    ['web', { host: 'tcp://x' }, 'options.host is not an option of docker sensors'],
  ])('rejects %j %j', (target, options, message) => {
    expect(probe.validate(target, options)).toBe(message);
  });
});
