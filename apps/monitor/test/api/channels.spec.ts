import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import { DeliveryService } from '../../src/channels/delivery.service';
import { SensorRuntimeService } from '../../src/scheduler/sensor-runtime.service';
import { MutableClock } from './support/clock';
import { call, expectNoSecretsIn, Headers, setupAdmin } from './support/http';
import { sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const SECRET = 'hmac-secret-for-tests';

interface WebhookBody {
  event: string;
  title: string;
  message: string;
  url: string;
  incident: { cause: string; resolved_at?: string };
}

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

/** A webhook receiver on 127.0.0.1 answering with the status the test sets. */
async function startReceiver() {
  const received: Received[] = [];
  const state = { status: 200, statuses: [] as number[], hangPath: '' };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        raw: Buffer.concat(chunks),
      });
      if (state.hangPath && req.url === state.hangPath) return; // never answers
      res.writeHead(state.statuses.shift() ?? state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  return { url, received, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('alert channels', () => {
  let t: TestApp;
  let admin: Headers;
  let clock: MutableClock;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({
      startScheduler: false,
      clock,
      env: { MONITOR_BASE_URL: 'https://status.example' },
    });
    admin = await setupAdmin(t);
    receiver = await startReceiver();
  });

  afterAll(async () => {
    try {
      expectNoSecretsIn(t.bodies, [SECRET]);
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  const webhook = (extra: Record<string, unknown> = {}) => ({
    name: 'ops',
    type: 'webhook',
    config: { url: receiver.url, hmac_secret: SECRET },
    ...extra,
  });

  it('lists the seven channel types with fields, secret flags and a recipe', async () => {
    const res = await call<
      { type: string; label: string; fields: { name: string; secret: boolean }[]; recipe: string[] }[]
    >(t, 'GET', '/api/channel-types', undefined, admin);
    expect(res.body.map((c) => c.type).sort()).toEqual(
      [
        'bot_messenger',
        'chat_webhook_a',
        'chat_webhook_b',
        'email',
        'federated_chat',
        'push_topic',
        'webhook',
      ].sort(),
    );
    for (const entry of res.body) {
      expect(entry.label).toBeTruthy();
      expect(entry.recipe.length).toBeGreaterThan(1);
    }
    const hook = res.body.find((c) => c.type === 'webhook');
    expect(hook?.fields.find((f) => f.name === 'hmac_secret')?.secret).toBe(true);
  });

  it('creates a channel with its secret masked, and the marker sent back keeps the secret', async () => {
    const created = await call<{ id: number; config: Record<string, unknown> }>(
      t,
      'POST',
      '/api/channels',
      webhook(),
      admin,
    );
    expect(created.status).toBe(201);
    expect(created.body.config).toEqual({ url: receiver.url, hmac_secret: '__stored__' });
    const put = await call(
      t,
      'PUT',
      `/api/channels/${created.body.id}`,
      { config: created.body.config, name: 'ops2' },
      admin,
    );
    expect(put.status).toBe(200);
    const [{ config }] = await sql<{ config: string }>(t, 'SELECT config FROM channels WHERE id = ?', [
      created.body.id,
    ]);
    expect(JSON.parse(config).hmac_secret).toBe(SECRET);
    await call(t, 'DELETE', `/api/channels/${created.body.id}`, undefined, admin);
  });

  it.each([
    [{ name: 'x', type: 'webhook', config: {} }, /url/],
    [{ name: 'x', type: 'pager', config: {} }, /type must be one of/],
    [
      { name: 'x', type: 'webhook', config: { url: 'http://127.0.0.1/' }, body_template: '{{.Name' },
      /^body_template: template:/,
    ],
    [
      { name: 'x', type: 'webhook', config: { url: 'http://127.0.0.1/', hmac_secret: '__stored__' } },
      /no stored value/,
    ],
  ])('refuses %p with 400', async (body, error) => {
    const res = await call<{ error: string }>(t, 'POST', '/api/channels', body, admin);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(error);
  });

  it('tests an unsaved definition and a saved one (with its stored secret); a refusal is 502 naming it', async () => {
    receiver.received.splice(0);
    expect((await call(t, 'POST', '/api/channels/test', webhook(), admin)).body).toEqual({ ok: true });
    const created = await call<{ id: number }>(t, 'POST', '/api/channels', webhook({ name: 'saved' }), admin);
    expect((await call(t, 'POST', `/api/channels/${created.body.id}/test`, undefined, admin)).body).toEqual({
      ok: true,
    });
    expect(receiver.received).toHaveLength(2);
    for (const r of receiver.received) {
      expect(r.headers['x-monitor-event']).toBe('test');
      const expected = createHmac('sha256', SECRET).update(r.raw).digest('hex');
      expect(r.headers['x-monitor-signature']).toBe(`sha256=${expected}`);
    }
    receiver.state.status = 400;
    const refused = await call<{ error: string }>(
      t,
      'POST',
      `/api/channels/${created.body.id}/test`,
      undefined,
      admin,
    );
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatch(/400/);
    receiver.state.status = 200;
    await call(t, 'DELETE', `/api/channels/${created.body.id}`, undefined, admin);
  });

  it('delivers down and up alerts of an attached sensor, with the incident, rendered templates and the link', async () => {
    receiver.received.splice(0);
    const channel = await call<{ id: number }>(
      t,
      'POST',
      '/api/channels',
      webhook({ name: 'alerts', title_template: '{{.Name}} is {{.Status}}' }),
      admin,
    );
    const sensor = await call<{ id: number }>(
      t,
      'POST',
      '/api/sensors',
      { name: 'shop', type: 'http', target: 'http://127.0.0.1:9/', retries: 1, channels: [channel.body.id] },
      admin,
    );
    const runtime = t.app.get(SensorRuntimeService);
    const delivery = t.app.get(DeliveryService);
    await runtime.record(
      sensor.body.id,
      { success: false, message: 'HTTP 503', latencyMs: 12, statusCode: 503 },
      clock.now(),
    );
    await delivery.idle();
    clock.advance(90_000);
    await runtime.record(
      sensor.body.id,
      { success: true, message: 'HTTP 200', latencyMs: 8, statusCode: 200 },
      clock.now(),
    );
    await delivery.idle();
    expect(receiver.received.map((r) => r.headers['x-monitor-event'])).toEqual(['down', 'up']);
    const [down, up] = receiver.received.map((r) => JSON.parse(r.raw.toString()) as WebhookBody);
    expect(down).toMatchObject({
      event: 'down',
      title: 'shop is down',
      url: `https://status.example/sensors/${sensor.body.id}`,
      sensor: { id: sensor.body.id, name: 'shop', type: 'http' },
      result: { success: false, message: 'HTTP 503', status_code: 503 },
      incident: { cause: 'HTTP 503' },
    });
    expect(up.incident.resolved_at).toBeDefined();
    expect(up.message).toMatch(/1m 30s/);
  });

  it('records the last error of a failing channel and skips a disabled one', async () => {
    receiver.received.splice(0);
    receiver.state.status = 400;
    const channel = await call<{ id: number }>(
      t,
      'POST',
      '/api/channels',
      webhook({ name: 'failing' }),
      admin,
    );
    const sensor = await call<{ id: number }>(
      t,
      'POST',
      '/api/sensors',
      { name: 'api', type: 'http', target: 'http://127.0.0.1:9/', retries: 1, channels: [channel.body.id] },
      admin,
    );
    const runtime = t.app.get(SensorRuntimeService);
    await runtime.record(
      sensor.body.id,
      { success: false, message: 'refused', latencyMs: null },
      clock.now(),
    );
    await t.app.get(DeliveryService).idle();
    expect(receiver.received).toHaveLength(1); // a 400 is not retried
    const got = await call<{ last_error: string; last_error_at: string | null }>(
      t,
      'GET',
      `/api/channels/${channel.body.id}`,
      undefined,
      admin,
    );
    expect(got.body.last_error).toMatch(/400/);
    expect(got.body.last_error_at).not.toBeNull();

    receiver.state.status = 200;
    await call(t, 'PUT', `/api/channels/${channel.body.id}`, { enabled: false }, admin);
    clock.advance(60_000);
    await runtime.record(sensor.body.id, { success: true, message: 'ok', latencyMs: 1 }, clock.now());
    await t.app.get(DeliveryService).idle();
    expect(receiver.received).toHaveLength(1);
  });

  it('retries 500 and 429 and then delivers; a slow channel does not delay another', async () => {
    receiver.received.splice(0);
    const retried = await call<{ id: number }>(
      t,
      'POST',
      '/api/channels',
      webhook({ name: 'retried' }),
      admin,
    );
    const hanging = await call<{ id: number }>(
      t,
      'POST',
      '/api/channels',
      { name: 'hanging', type: 'webhook', config: { url: `${receiver.url}/hang` } },
      admin,
    );
    receiver.state.hangPath = '/hook/hang';
    receiver.state.statuses = [500, 429];
    const sensor = await call<{ id: number }>(
      t,
      'POST',
      '/api/sensors',
      {
        name: 'two',
        type: 'http',
        target: 'http://127.0.0.1:9/',
        retries: 1,
        channels: [hanging.body.id, retried.body.id],
      },
      admin,
    );
    const started = Date.now();
    await t.app
      .get(SensorRuntimeService)
      .record(sensor.body.id, { success: false, message: 'down', latencyMs: null }, clock.now());
    // The healthy channel gets three attempts (1 s and 2 s apart) while the other hangs.
    const deadline = Date.now() + 8000;
    while (receiver.received.filter((r) => r.url === '/hook').length < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const attempts = receiver.received.filter((r) => r.url === '/hook');
    expect(attempts).toHaveLength(3);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(receiver.received.filter((r) => r.url === '/hook/hang').length).toBeGreaterThanOrEqual(1);
    receiver.state.hangPath = '';
  });

  it('delivers reminders with the open incident', async () => {
    receiver.received.splice(0);
    const channel = await call<{ id: number }>(
      t,
      'POST',
      '/api/channels',
      webhook({ name: 'reminders' }),
      admin,
    );
    const sensor = await call<{ id: number }>(
      t,
      'POST',
      '/api/sensors',
      {
        name: 'reminded',
        type: 'http',
        target: 'http://127.0.0.1:9/',
        retries: 1,
        reminder_every: 60,
        channels: [channel.body.id],
      },
      admin,
    );
    const runtime = t.app.get(SensorRuntimeService);
    await runtime.record(
      sensor.body.id,
      { success: false, message: 'HTTP 500', latencyMs: 3, statusCode: 500 },
      clock.now(),
    );
    clock.advance(61_000);
    await runtime.tick([]);
    // Wait for this channel only: the hanging channel of the previous test is still retrying.
    const mine = () => receiver.received.filter((r) => r.url === '/hook');
    for (let i = 0; i < 100 && mine().length < 2; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const events = mine().map((r) => JSON.parse(r.raw.toString()) as WebhookBody);
    expect(events.map((e) => e.event)).toEqual(['down', 'reminder']);
    expect(events[1].incident.cause).toBe('HTTP 500');
    expect(events[1].title).toBe('reminded is still down');
  });
});
