import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeliveryService } from '../../src/channels/delivery.service';
import { SensorRuntimeService } from '../../src/scheduler/sensor-runtime.service';
import { MutableClock } from './support/clock';
import { accountWithRole, call, type Headers, setupAdmin } from './support/http';
import { createSensor, record, type Sensor, sql } from './support/sensors';
import { startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(60_000);

const KEY = 'header-value-Zq81-never-shown';
const BODY = '{"token":"body-secret-Pw27"}';
const PASSWORD = 'basic-password-Lm44';
const SECRETS = [KEY, 'body-secret-Pw27', PASSWORD];
const STORED = '__stored__';

interface Seen {
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Header values, the body and the basic auth password of http sensors are secret options. */
describe('secret options of http sensors', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let viewer: Headers;
  let server: http.Server;
  let target = '';
  const seen: Seen[] = [];
  const hooks: string[] = [];
  let hook: http.Server;
  let hookUrl = '';
  let sensor: Sensor;

  const listen = async (s: http.Server) => {
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    return (s.address() as AddressInfo).port;
  };

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(200).end('ok');
      });
    });
    target = `http://127.0.0.1:${await listen(server)}/api`;
    hook = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hooks.push(Buffer.concat(chunks).toString());
        res.writeHead(200).end();
      });
    });
    hookUrl = `http://127.0.0.1:${await listen(hook)}/hook`;
    sensor = await createSensor(t, admin, {
      name: 'billing api',
      type: 'http',
      target,
      retries: 1,
      options: {
        method: 'POST',
        headers: { 'X-Api-Key': KEY, 'X-Empty': '' },
        body: BODY,
        basic_auth_user: 'billing',
        basic_auth_password: PASSWORD,
      },
    });
  });

  afterAll(async () => {
    for (const s of [server, hook]) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
    await t.close();
  });

  const masked = {
    method: 'POST',
    headers: { 'X-Api-Key': STORED, 'X-Empty': '' },
    body: STORED,
    basic_auth_user: 'billing',
    basic_auth_password: STORED,
  };
  const storedOptions = async () =>
    JSON.parse(
      (await sql<{ options: string }>(t, 'SELECT options FROM sensors WHERE id = ?', [sensor.id]))[0].options,
    ) as Record<string, unknown>;

  it('masks them in the create answer, GET /api/sensors, /api/sensors/{id} and /api/summary', async () => {
    expect(sensor.options).toEqual(masked);
    const list = await call<Sensor[]>(t, 'GET', '/api/sensors', undefined, viewer);
    expect(list.body.find((s) => s.id === sensor.id)?.options).toEqual(masked);
    expect(
      (await call<Sensor>(t, 'GET', `/api/sensors/${sensor.id}`, undefined, viewer)).body.options,
    ).toEqual(masked);
    const summary = await call<{ sensors: Sensor[] }>(t, 'GET', '/api/summary', undefined, viewer);
    expect(JSON.stringify(summary.body)).toContain('billing api');
    for (const body of [list, summary].map((r) => JSON.stringify(r.body)))
      for (const secret of SECRETS) expect(body).not.toContain(secret);
  });

  it('sends the stored values: headers, body and Authorization: Basic', async () => {
    seen.length = 0;
    const res = await call<{ success: boolean }>(
      t,
      'POST',
      `/api/sensors/${sensor.id}/probe`,
      undefined,
      admin,
    );
    expect(res.body.success).toBe(true);
    expect(seen[0]).toMatchObject({ method: 'POST', body: BODY });
    expect(seen[0].headers['x-api-key']).toBe(KEY);
    expect(seen[0].headers.authorization).toBe(
      `Basic ${Buffer.from(`billing:${PASSWORD}`).toString('base64')}`,
    );
  });

  it('an edit that sends the markers back keeps every stored value, per header name', async () => {
    const events = record(t, 'sensor');
    const res = await call<Sensor>(
      t,
      'PUT',
      `/api/sensors/${sensor.id}`,
      {
        name: 'billing api v2',
        options: { ...masked, headers: { 'x-api-key': STORED, 'X-New': 'visible' } },
      },
      admin,
    );
    events.stop();
    expect(res.status).toBe(200);
    expect(res.body.options.headers).toEqual({ 'x-api-key': STORED, 'X-New': STORED });
    expect(await storedOptions()).toEqual({
      method: 'POST',
      headers: { 'x-api-key': KEY, 'X-New': 'visible' },
      body: BODY,
      basic_auth_user: 'billing',
      basic_auth_password: PASSWORD,
    });
    // The event stream names the sensor only.
    expect(events.events).toEqual([{ id: sensor.id, action: 'updated' }]);
  });

  it('the marker for a header that holds nothing is a 400 and changes nothing', async () => {
    const before = await storedOptions();
    const res = await call<{ error: string }>(
      t,
      'PUT',
      `/api/sensors/${sensor.id}`,
      { options: { ...masked, headers: { 'X-Other': STORED } } },
      admin,
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('options.headers.X-Other: there is no stored value to keep');
    expect(await storedOptions()).toEqual(before);
  });

  it('refuses credentials in a target with a 400 that points to the basic auth options', async () => {
    const res = await call<{ error: string }>(
      t,
      'POST',
      '/api/sensors',
      { name: 'inline', type: 'http', target: `http://billing:${PASSWORD}@127.0.0.1:9/` },
      admin,
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('options.basic_auth_user and options.basic_auth_password');
    expect(res.body.error).not.toContain(PASSWORD);
  });

  it('search never finds them', async () => {
    for (const q of [KEY, 'body-secret', PASSWORD]) {
      const res = await call<{ hits: unknown[] }>(
        t,
        'GET',
        `/api/search?q=${encodeURIComponent(q)}`,
        undefined,
        viewer,
      );
      expect(res.body.hits).toEqual([]);
    }
  });

  it('a webhook alert and its templates carry none of them', async () => {
    const every =
      '{{.Name}} {{.Type}} {{.Target}} {{.Group}} {{.Tags}} {{.Status}} {{.Message}} {{.URL}} {{.Event}}';
    const channel = await call<{ id: number }>(
      t,
      'POST',
      '/api/channels',
      {
        name: 'hook',
        type: 'webhook',
        config: { url: hookUrl },
        title_template: every,
        body_template: every,
      },
      admin,
    );
    await call(t, 'PUT', `/api/sensors/${sensor.id}`, { channels: [channel.body.id] }, admin);
    await t.app
      .get(SensorRuntimeService)
      .record(sensor.id, { success: false, message: 'HTTP 503', latencyMs: 3, statusCode: 503 }, clock.now());
    await t.app.get(DeliveryService).idle();
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toContain('billing api v2');
    expect(hooks[0]).toContain(target);
    for (const secret of SECRETS) expect(hooks[0]).not.toContain(secret);
  });

  it('a backup and its restore write none of them to the log', async () => {
    const backup = await fetch(`${t.url}/api/backup`, { headers: admin });
    const text = await backup.text();
    expect(text).toContain(PASSWORD); // the one place a secret is written in clear
    const restored = await fetch(`${t.url}/api/restore`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: text,
    });
    expect(restored.status).toBe(200);
    const log = JSON.stringify(t.logs);
    for (const secret of SECRETS) expect(log).not.toContain(secret);
  });
});
