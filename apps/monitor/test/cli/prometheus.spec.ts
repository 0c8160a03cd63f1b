import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { startServer, type RunningServer } from '../support/server-process';
import { requireBuiltExecutable, Resources } from './cli-support';

jest.setTimeout(120_000);

const PASSWORD = 'prometheus test password';
/** Quotes, a backslash and a newline: escaping is the exposition's job, and Prometheus reads it back. */
const SENSOR = 'edge "door" \\ one\nline two';

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

async function json<T>(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

/** Asks until `check` answers something, or fails after `ms` naming what it waited for. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface VectorAnswer {
  status: string;
  data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
}

describe('Prometheus scraping the built process', () => {
  const resources = new Resources();
  let server: RunningServer;
  let target: http.Server;
  let prometheus: ChildProcess | undefined;
  let prometheusUrl: string;
  let prometheusLog = '';
  let token: string;

  beforeAll(async () => {
    requireBuiltExecutable();
    target = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const targetPort = (target.address() as net.AddressInfo).port;

    server = resources.server(
      await startServer({ dataDir: resources.dir(), env: { MONITOR_ADMIN_PASSWORD: PASSWORD } }),
    );
    const login = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const admin = { cookie, 'content-type': 'application/json', origin: server.url };
    const sensor = await fetch(`${server.url}/api/sensors`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        name: SENSOR,
        type: 'http',
        target: `http://127.0.0.1:${targetPort}/`,
        interval: 1,
        group: 'edge',
      }),
    });
    expect(sensor.status).toBe(201);
    const made = await json<{ metrics_token: string }>(`${server.url}/api/metrics-token`, {
      method: 'POST',
      headers: { cookie, origin: server.url },
    });
    expect(made.status).toBe(200);
    token = made.body.metrics_token;

    const dir = resources.dir();
    const tokenFile = path.join(dir, 'metrics-token');
    fs.writeFileSync(tokenFile, token, { mode: 0o600 });
    const config = path.join(dir, 'prometheus.yml');
    fs.writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        'scrape_configs:',
        '  - job_name: monitor',
        '    authorization:',
        '      type: Bearer',
        `      credentials_file: ${tokenFile}`,
        '    static_configs:',
        `      - targets: ['127.0.0.1:${server.port}']`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      '/usr/bin/prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${path.join(dir, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout?.on('data', (chunk: Buffer) => (prometheusLog += chunk.toString()));
    prometheus.stderr?.on('data', (chunk: Buffer) => (prometheusLog += chunk.toString()));
    await eventually('Prometheus to be ready', async () =>
      (await fetch(`${prometheusUrl}/-/ready`)).status === 200 ? true : undefined,
    );
  });

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await new Promise((resolve) => target?.close(resolve));
    await resources.release();
  });

  const query = async (promql: string): Promise<VectorAnswer['data']['result']> => {
    const answer = await json<VectorAnswer>(
      `${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`,
    );
    expect(answer.body.status).toBe('success');
    return answer.body.data.result;
  };

  it('scrapes with the metrics token and answers monitor_sensor_up of the sensor through its query API', async () => {
    const escaped = SENSOR.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
    const result = await eventually(
      `monitor_sensor_up 1 in Prometheus (its log: ${prometheusLog.slice(-500)})`,
      async () => {
        const found = await query(`monitor_sensor_up{sensor="${escaped}"}`);
        return found.length === 1 && found[0].value[1] === '1' ? found : undefined;
      },
    );
    expect(result[0].metric).toEqual({
      __name__: 'monitor_sensor_up',
      instance: `127.0.0.1:${server.port}`,
      job: 'monitor',
      sensor: SENSOR,
      type: 'http',
      group: 'edge',
      // An empty label (no site) is no label to Prometheus.
    });
    expect((await query('up{job="monitor"}'))[0].value[1]).toBe('1');
    // Counted at the source by the scheduler of this process.
    const probes = await eventually('counted probes', async () => {
      const found = await query(`monitor_probes_total{sensor="${escaped}",result="success"}`);
      return found.length === 1 && Number(found[0].value[1]) > 0 ? found : undefined;
    });
    expect(Number(probes[0].value[1])).toBeGreaterThan(0);
    const lag = await query('monitor_probe_start_lag_seconds_count');
    expect(Number(lag[0].value[1])).toBeGreaterThan(0);
  });

  it('serves text promtool accepts, and refuses a scrape without the token', async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    const check = spawnSync('/usr/bin/promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    const findings = `${check.stdout}${check.stderr}`
      .split('\n')
      .filter((l) => l !== '' && !/^nodejs_active_(handles|requests|resources)_total non-counter/.test(l));
    expect(findings).toEqual([]);
    expect([0, 3]).toContain(check.status);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
  });
});
