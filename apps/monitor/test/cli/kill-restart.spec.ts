import * as fs from 'node:fs';
import * as http from 'node:http';
import { readStoredRows } from '../api/support/concurrency';
import { RunningServer, startServer, tempDir } from '../support/server-process';
import { testBackend } from '../support/test-database';
import { requireBuiltExecutable } from './cli-support';

/**
 * kill -9 against the built process, restarted on the same data directory: an outage that was
 * announced and resolved is never reconstructed again, and a `down` alert whose delivery the kill
 * interrupted is sent after the restart, once.
 */
jest.setTimeout(120_000);

const PASSWORD = 'kill restart password';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A probe target whose answer the test sets. */
async function startTarget() {
  const state = { code: 200, hits: 0 };
  const server = http.createServer((_req, res) => {
    state.hits++;
    res.writeHead(state.code).end(String(state.code));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A webhook receiver. `accepted` lists the events it answered 200 to; in `hold` mode it answers
 * nothing (a slow receiver) and calls `onHold`, and a request whose sender dies is not accepted.
 */
async function startReceiver() {
  const accepted: string[] = [];
  const state = { hold: false, onHold: (_event: string) => undefined as void };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const event = String(req.headers['x-monitor-event']);
      if (state.hold) return state.onHold(event);
      res.on('finish', () => accepted.push(event));
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

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (check()) return true;
  return check();
}

async function post<T>(server: RunningServer, url: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(`${server.url}${url}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A probe target that notes when it finished answering each probe, per path. */
async function startAnsweringTarget() {
  const answered = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    res.on('finish', () => answered.set(path, [...(answered.get(path) ?? []), Date.now()]));
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Signs in, then creates a webhook channel and one http sensor at 1 s with retries 1 on it. */
async function createWatchedSensor(server: RunningServer, target: string, hook: string): Promise<number> {
  const headers = await apiKeyHeaders(server);
  const channel = await post<{ id: number }>(server, '/api/channels', headers, {
    name: 'hook',
    type: 'webhook',
    config: { url: hook },
  });
  const sensor = await post<{ id: number }>(server, '/api/sensors', headers, {
    name: 'killed',
    type: 'http',
    target,
    interval: 1,
    retries: 1,
    channels: [channel.id],
  });
  return sensor.id;
}

async function apiKeyHeaders(server: RunningServer): Promise<Record<string, string>> {
  const login = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const cookie = login.headers.getSetCookie()[0].split(';')[0];
  const { api_key } = await post<{ api_key: string }>(server, '/api/api-key', { cookie }, undefined);
  return { 'x-api-key': api_key, 'content-type': 'application/json' };
}

/** Incidents and unsent outbox rows, read through a connection of the test's own (either backend). */
async function stored(dataDir: string) {
  const incidents = await readStoredRows<{
    started_at: number;
    resolved_at: number | null;
    reconstructed: number;
  }>(dataDir, 'SELECT started_at, resolved_at, reconstructed FROM incidents');
  // Null when there is no outbox at all (a build from before it existed).
  const outbox = await readStoredRows(
    dataDir,
    testBackend() === 'sqlite'
      ? `SELECT 1 FROM sqlite_master WHERE name = 'alert_outbox'`
      : `SELECT 1 FROM information_schema.tables WHERE table_name = 'alert_outbox'`,
  );
  const unsent =
    outbox.length > 0
      ? (
          await readStoredRows<{ n: number }>(
            dataDir,
            'SELECT count(*) AS n FROM alert_outbox WHERE finished_at IS NULL',
          )
        )[0].n
      : null;
  return { incidents, unsent };
}

describe('kill -9 and restart on the same data directory (the built process)', () => {
  let target: Awaited<ReturnType<typeof startTarget>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const dirs: string[] = [];
  let server: RunningServer | undefined;

  beforeAll(() => requireBuiltExecutable());

  beforeEach(async () => {
    target = await startTarget();
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
    await target.close();
    await receiver.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('an outage announced and resolved before the kill is not reconstructed by three restarts: down, up and one incident', async () => {
    const dataDir = tempDir('monitor-kill-');
    dirs.push(dataDir);
    server = await startServer({ dataDir, env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
    await createWatchedSensor(server, target.url, receiver.url);

    target.state.code = 500;
    expect(await until(() => receiver.accepted.includes('down'), 15_000)).toBe(true);
    // Long enough for failures to reach the disk in a batch of ordinary results.
    await sleep(6000);
    target.state.code = 200;
    expect(await until(() => receiver.accepted.includes('up'), 15_000)).toBe(true);
    // Soon after the recovery: the ordinary results of the last second may be lost, not the recovery.
    await sleep(300);
    await server.stop('SIGKILL');

    for (let restart = 0; restart < 3; restart++) {
      server = await startServer({ dataDir });
      // Several successful probes, and time for any alert a restart wrongly produced to arrive.
      await sleep(3000);
      await server.stop('SIGKILL');
    }
    server = undefined;

    expect(receiver.accepted).toEqual(['down', 'up']);
    const after = await stored(dataDir);
    expect(after.incidents).toHaveLength(1);
    expect(after.incidents[0]).toMatchObject({ reconstructed: 0, resolved_at: expect.any(Number) });
    expect(after.unsent).toBe(0);
  });

  it('a down alert interrupted by the kill (the receiver was still answering) arrives once after the restart', async () => {
    const dataDir = tempDir('monitor-kill-');
    dirs.push(dataDir);
    const first = await startServer({ dataDir, env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
    server = first;
    await createWatchedSensor(first, target.url, receiver.url);

    // The incident is stored before its alert leaves: kill while the receiver holds the alert.
    const killed = new Promise<void>((resolve) => {
      receiver.state.onHold = () => void first.stop('SIGKILL').then(() => resolve());
    });
    receiver.state.hold = true;
    target.state.code = 500;
    await killed;
    receiver.state.hold = false;
    expect((await stored(dataDir)).incidents).toHaveLength(1);
    expect(receiver.accepted).toEqual([]);

    server = await startServer({ dataDir });
    expect(await until(() => receiver.accepted.length > 0, 15_000)).toBe(true);
    await sleep(2000); // still down: no second down
    await server.stop('SIGKILL');

    // Another restart sends nothing already sent.
    server = await startServer({ dataDir });
    await sleep(2500);
    expect(await server.stop()).toBe(0);
    server = undefined;

    expect(receiver.accepted).toEqual(['down']);
    const after = await stored(dataDir);
    expect(after.incidents).toHaveLength(1);
    expect(after.incidents[0]).toMatchObject({ reconstructed: 0, resolved_at: null });
    expect(after.unsent).toBe(0);
  });

  it('a process killed a few seconds after start has stored all but about the last second of its results', async () => {
    const dataDir = tempDir('monitor-kill-');
    dirs.push(dataDir);
    server = await startServer({ dataDir, env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
    const id = await createWatchedSensor(server, target.url, receiver.url);
    const before = target.state.hits;
    expect(await until(() => target.state.hits - before >= 3, 15_000)).toBe(true);
    await server.stop('SIGKILL');
    server = undefined;
    const answered = target.state.hits - before;

    const [{ n }] = await readStoredRows<{ n: number }>(
      dataDir,
      'SELECT count(*) AS n FROM probe_results WHERE sensor_id = ?',
      id,
    );
    // One interval of results may still be waiting (or in flight) at the kill; nothing older.
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeGreaterThanOrEqual(answered - 2);
  });

  it('results of probes answered more than 600 ms before the kill are stored, however the kill is timed', async () => {
    const answering = await startAnsweringTarget();
    try {
      const dataDir = tempDir('monitor-kill-');
      dirs.push(dataDir);
      server = await startServer({ dataDir, env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
      const headers = await apiKeyHeaders(server);
      const ids: number[] = [];
      for (let n = 0; n < 10; n++)
        ids.push(
          (
            await post<{ id: number }>(server, '/api/sensors', headers, {
              name: `durable ${n}`,
              type: 'http',
              target: `${answering.url}/${n}`,
              interval: 1,
            })
          ).id,
        );
      // Results commit within 200 ms of completing; the rest of the margin is for a loaded machine.
      const MARGIN_MS = 600;
      const missing = async (at: number): Promise<number> => {
        const rows = await readStoredRows<{ sensor_id: number; n: number }>(
          dataDir,
          'SELECT sensor_id, count(*) AS n FROM probe_results GROUP BY sensor_id',
        );
        const stored = new Map(rows.map((r) => [Number(r.sensor_id), Number(r.n)]));
        let count = 0;
        ids.forEach((id, n) => {
          const old = (answering.answered.get(`/${n}`) ?? []).filter((t) => t < at - MARGIN_MS).length;
          count += Math.max(0, old - (stored.get(id) ?? 0));
        });
        return count;
      };
      // The kill comes the moment a result older than the margin is seen missing, or after 8 s.
      await sleep(3000);
      for (const end = Date.now() + 8000; Date.now() < end && (await missing(Date.now())) === 0;)
        await sleep(20);
      const killedAt = Date.now();
      await server.stop('SIGKILL');
      server = undefined;
      expect([...answering.answered.values()].flat().length).toBeGreaterThanOrEqual(30);
      expect(await missing(killedAt)).toBe(0);
    } finally {
      await answering.close();
    }
  });
});
