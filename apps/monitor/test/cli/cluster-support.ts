import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { type RunningServer, startServer, tempDir } from '../support/server-process';
import { databaseUrlFor } from '../support/test-database';

export const PASSWORD = 'cluster test password';
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (await check()) return true;
  return check();
}

/** Several built processes sharing one PostgreSQL database, each with its own data directory. */
export class TestCluster {
  readonly databaseUrl: string;
  /** The directory whose database the instances share (readStoredRows reads it). */
  readonly sharedDir: string;
  readonly instances = new Map<string, RunningServer>();
  private readonly dirs: string[] = [];
  private readonly config: string;

  /** `databaseUrl`: a database of the caller's own (a server it stops and starts), not the shared test server's. */
  constructor(deadAfter = '3s', databaseUrl?: string) {
    const shared = tempDir('monitor-cluster-');
    this.sharedDir = shared;
    this.dirs.push(shared);
    this.databaseUrl = databaseUrl ?? databaseUrlFor(shared);
    this.config = path.join(shared, 'monitor.yaml');
    fs.writeFileSync(this.config, `cluster:\n  dead_after: ${deadAfter}\n`);
  }

  async start(name: string, env: Record<string, string> = {}): Promise<RunningServer> {
    const dataDir = tempDir(`monitor-${name}-`);
    this.dirs.push(dataDir);
    const server = await startServer({
      dataDir,
      args: ['--config', this.config],
      env: {
        MONITOR_DATABASE_URL: this.databaseUrl,
        MONITOR_INSTANCE_NAME: name,
        MONITOR_ADMIN_PASSWORD: PASSWORD,
        ...env,
      },
      timeoutMs: 60_000,
    });
    this.instances.set(name, server);
    return server;
  }

  get(name: string): RunningServer {
    const server = this.instances.get(name);
    if (!server) throw new Error(`no instance ${name}`);
    return server;
  }

  async stop(name: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.instances.get(name)?.stop(signal);
    this.instances.delete(name);
  }

  async close(): Promise<void> {
    await Promise.all([...this.instances.values()].map((s) => s.stop('SIGKILL')));
    this.instances.clear();
    for (const dir of this.dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** An administrator's API key, through any instance. */
export async function apiKey(server: RunningServer): Promise<string> {
  const cookie = await login(server);
  const response = await fetch(`${server.url}/api/api-key`, { method: 'POST', headers: { cookie } });
  return ((await response.json()) as { api_key: string }).api_key;
}

export async function login(server: RunningServer): Promise<string> {
  const response = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  if (!response.ok) throw new Error(`login: ${response.status}`);
  return response.headers.getSetCookie()[0].split(';')[0];
}

export async function call<T>(
  server: RunningServer,
  key: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${server.url}${url}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/**
 * A probe target: `/s/<n>` answers the status set for sensor n (200 by default) and records the
 * time of every arrival, so a test can count probes per sensor and cycle.
 */
export async function startTarget() {
  const arrivals = new Map<string, number[]>();
  const failing = new Set<string>();
  const server = http.createServer((req, res) => {
    const key = String(req.url);
    arrivals.set(key, [...(arrivals.get(key) ?? []), Date.now()]);
    res.writeHead(failing.has(key) ? 500 : 200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: (key: string) => `${base}${key}`,
    arrivals,
    failing,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A webhook receiver counting each (sensor, event) it accepted; `hold` leaves requests unanswered. */
export async function startReceiver() {
  const accepted: { sensor: number; event: string }[] = [];
  const state = { hold: false, onHold: () => undefined as void };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (state.hold) return state.onHold();
      const event = String(req.headers['x-monitor-event']);
      const sensor = (JSON.parse(body) as { sensor: { id: number } }).sensor.id;
      res.on('finish', () => accepted.push({ sensor, event }));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    accepted,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The shortest time between two arrivals, and the longest, from `since` on. */
export function spacing(times: number[], since = 0): { min: number; max: number } {
  const kept = times.filter((t) => t >= since);
  let min = Infinity;
  let max = 0;
  for (let i = 1; i < kept.length; i++) {
    min = Math.min(min, kept[i] - kept[i - 1]);
    max = Math.max(max, kept[i] - kept[i - 1]);
  }
  return { min, max };
}
