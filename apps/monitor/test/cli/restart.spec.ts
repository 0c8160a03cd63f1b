import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { readStoredRows } from '../api/support/concurrency';
import { MAIN_JS, parseLogLines, RunningServer, startServer, tempDir } from '../support/server-process';
import { databaseUrlFor, testBackend } from '../support/test-database';

jest.setTimeout(90_000);

const PASSWORD = 'restart test password';

/** A probe target whose answer the test sets. */
async function startTarget(): Promise<{ url: string; status: { code: number }; close(): Promise<void> }> {
  const status = { code: 500 };
  const server = http.createServer((_req, res) => res.writeHead(status.code).end(String(status.code)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    status,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function apiKey(server: RunningServer): Promise<Record<string, string>> {
  const login = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const cookie = login.headers.getSetCookie()[0].split(';')[0];
  const { api_key } = (await (
    await fetch(`${server.url}/api/api-key`, { method: 'POST', headers: { cookie } })
  ).json()) as {
    api_key: string;
  };
  return { 'x-api-key': api_key, 'content-type': 'application/json' };
}

interface SensorState {
  status: string;
  incident_id: number | null;
}

async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  ms = 20_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Runs one write statement (`?` placeholders) on the data directory's database, either backend. */
async function writeStored(dataDir: string, sql: string, ...params: unknown[]): Promise<void> {
  if (testBackend() === 'sqlite') {
    const db = new Database(path.join(dataDir, 'monitor.db'));
    try {
      db.prepare(sql).run(...params);
    } finally {
      db.close();
    }
    return;
  }
  const client = new Client({ connectionString: databaseUrlFor(dataDir) });
  await client.connect();
  try {
    let n = 0;
    await client.query(
      sql.replace(/\?/g, () => `$${++n}`),
      params,
    );
  } finally {
    await client.end();
  }
}

const alerts = (server: RunningServer) =>
  parseLogLines(server.output()).filter((line) => line.msg === 'alert');

describe('restart safety (the real process, stopped and started on one data directory)', () => {
  let dataDir: string;
  let target: Awaited<ReturnType<typeof startTarget>>;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    if (!fs.existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: run npm run build first`);
    dataDir = tempDir('monitor-restart-');
    target = await startTarget();
  });

  afterAll(async () => {
    await server?.stop();
    await target.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps a known outage across a restart and announces nothing new, then recovers with one up alert', async () => {
    server = await startServer({ dataDir, env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
    const headers = await apiKey(server);
    const created = await fetch(`${server.url}/api/sensors`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'flaky', type: 'http', target: target.url, interval: 1, retries: 2 }),
    });
    const { id } = (await created.json()) as { id: number };
    const read = async () =>
      (await (await fetch(`${server!.url}/api/sensors/${id}`, { headers })).json()) as SensorState;
    const down = await waitFor(read, (s) => s.status === 'down' && s.incident_id !== null, 'the outage');
    expect(alerts(server).map((a) => a.alert)).toEqual(['down']);
    expect(await server.stop()).toBe(0);

    server = await startServer({ dataDir });
    const again = await apiKey(server).catch(() => headers);
    const readAgain = async () =>
      (await (await fetch(`${server!.url}/api/sensors/${id}`, { headers: again })).json()) as SensorState;
    const afterRestart = await readAgain();
    expect(afterRestart).toMatchObject({ status: 'down', incident_id: down.incident_id });
    await new Promise((resolve) => setTimeout(resolve, 3000)); // several more failing probes
    expect(alerts(server)).toEqual([]);
    expect((await readAgain()).incident_id).toBe(down.incident_id);

    target.status.code = 200;
    await waitFor(readAgain, (s) => s.status === 'up', 'the recovery');
    expect(alerts(server).map((a) => a.alert)).toEqual(['up']);
    expect(await server.stop()).toBe(0);
    server = undefined;
    target.status.code = 500;
  });

  it('reconstructs an outage whose failures were stored without an incident, without alerting', async () => {
    const [{ id }] = await readStoredRows<{ id: number }>(
      dataDir,
      `SELECT id FROM sensors WHERE name = 'flaky'`,
    );
    const [{ ts: last }] = await readStoredRows<{ ts: number }>(
      dataDir,
      'SELECT max(ts) AS ts FROM probe_results WHERE sensor_id = ?',
      id,
    );
    const first = last + 60_000;
    for (let i = 0; i < 3; i++)
      await writeStored(
        dataDir,
        `INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message) VALUES (?, ?, false, 503, 3, 'HTTP 503')`,
        id,
        first + i * 1000,
      );

    server = await startServer({ dataDir, env: { PUID: '0' } });
    const headers = await apiKey(server);
    const sensor = (await (
      await fetch(`${server.url}/api/sensors/${id}`, { headers })
    ).json()) as SensorState;
    expect(sensor.status).toBe('down');
    const [incident] = await readStoredRows<Record<string, unknown>>(
      dataDir,
      'SELECT * FROM incidents WHERE id = ?',
      sensor.incident_id,
    );
    expect(incident).toMatchObject({
      started_at: first,
      resolved_at: null,
      cause: 'HTTP 503 (reconstructed after restart)',
      reconstructed: 1,
    });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(alerts(server)).toEqual([]);
    expect(
      parseLogLines(server.output()).some(
        (l) => l.msg === 'reconstructed outages that happened while stopped',
      ),
    ).toBe(true);
  });
});
