import * as http from 'node:http';
import { makeServerCert } from '../../../../libs/probes/src/testing/certs';
import { parseMessage } from '../../../../libs/notifiers/src/testing/mime';
import { startSmtpPeer, type SmtpPeer } from '../../../../libs/notifiers/src/testing/smtp-peer';
import { DeliveryService } from '../../src/channels/delivery.service';
import { SensorRuntimeService } from '../../src/scheduler/sensor-runtime.service';
import { MutableClock } from './support/clock';
import { call, expectNoSecretsIn, Headers, setupAdmin } from './support/http';
import { sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const USER = 'alerts@example.com';
const PASSWORD = 'smtp-app-password-Zq81';

describe('the e-mail channel end to end (aiosmtpd on 127.0.0.1)', () => {
  let t: TestApp;
  let admin: Headers;
  let clock: MutableClock;
  let smtp: SmtpPeer;
  let health: http.Server;
  let healthUrl = '';
  const state = { status: 'degraded' };

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({
      startScheduler: false,
      clock,
      env: { MONITOR_BASE_URL: 'https://status.example' },
    });
    admin = await setupAdmin(t);
    smtp = await startSmtpPeer({
      security: 'starttls',
      tls: await makeServerCert(),
      auth: { user: USER, password: PASSWORD },
    });
    health = http.createServer((_, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: state.status }));
    });
    await new Promise<void>((resolve) => health.listen(0, '127.0.0.1', resolve));
    healthUrl = `http://127.0.0.1:${(health.address() as { port: number }).port}/health`;
  });

  afterAll(async () => {
    try {
      expectNoSecretsIn(t.bodies, [PASSWORD]);
      expect(JSON.stringify(t.logs)).not.toContain(PASSWORD);
    } finally {
      await t.close();
      await smtp.close();
      await new Promise<void>((resolve) => health.close(() => resolve()));
    }
  });

  const email = (extra: Record<string, unknown> = {}) => ({
    name: 'mail',
    type: 'email',
    config: {
      host: '127.0.0.1',
      port: String(smtp.port),
      security: 'starttls',
      username: USER,
      password: PASSWORD,
      from: `Monitor <${USER}>`,
      to: 'ops@example.com, oncall@example.org',
      insecure_skip_verify: true,
    },
    ...extra,
  });

  it('lists the email type with its fields, the password secret and a recipe', async () => {
    const res = await call<
      {
        type: string;
        fields: { name: string; secret: boolean; kind: string; options?: string[] }[];
        recipe: string[];
      }[]
    >(t, 'GET', '/api/channel-types', undefined, admin);
    const entry = res.body.find((c) => c.type === 'email');
    expect(entry?.fields.map((f) => f.name)).toEqual([
      'host',
      'port',
      'security',
      'username',
      'password',
      'from',
      'to',
      'reply_to',
      'insecure_skip_verify',
    ]);
    expect(entry?.fields.filter((f) => f.secret).map((f) => f.name)).toEqual(['password']);
    expect(entry?.fields.find((f) => f.name === 'security')).toMatchObject({
      kind: 'enum',
      options: ['none', 'starttls', 'tls'],
    });
    expect(entry?.recipe.join(' ')).toMatch(/app password/);
  });

  it('creates the channel with the password masked and sends a test mail to every recipient', async () => {
    const created = await call<{ id: number; config: Record<string, unknown> }>(
      t,
      'POST',
      '/api/channels',
      email(),
      admin,
    );
    expect(created.status).toBe(201);
    expect(created.body.config['password']).toBe('__stored__');
    const [{ config }] = await sql<{ config: string }>(t, 'SELECT config FROM channels WHERE id = ?', [
      created.body.id,
    ]);
    expect(JSON.parse(config).password).toBe(PASSWORD);

    const tested = await call(t, 'POST', `/api/channels/${created.body.id}/test`, undefined, admin);
    expect(tested.status).toBe(200);
    expect(tested.body).toEqual({ ok: true });
    const [mail] = await smtp.waitFor(1);
    expect(mail?.mail_from).toBe(USER);
    expect(mail?.rcpt_tos).toEqual(['ops@example.com', 'oncall@example.org']);
    expect(mail?.authenticated).toBe(true);
    const message = parseMessage(mail?.data ?? '');
    expect(message.headers['subject']).toMatch(/test/i);
    expect(message.parts.map((p) => p.headers['content-type']?.split(';')[0])).toEqual([
      'text/plain',
      'text/html',
    ]);
    await call(t, 'DELETE', `/api/channels/${created.body.id}`, undefined, admin);
  });

  it.each([
    [{ to: 'ops@example.com, not an address' }, 'config.to has an invalid address "not an address"'],
    [{ port: '70000' }, 'config.port must be a whole number from 1 to 65535'],
    [{ security: 'ssl' }, 'config.security must be one of none, starttls, tls'],
    [{ host: '' }, 'config.host is required'],
  ])('refuses %p with 400 naming the field', async (change, error) => {
    const body = email();
    const res = await call<{ error: string }>(
      t,
      'POST',
      '/api/channels',
      { ...body, config: { ...body.config, ...change } },
      admin,
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(error);
  });

  it('answers a wrong password with 502 naming the refusal, never the password', async () => {
    const body = email();
    const res = await call<{ error: string }>(
      t,
      'POST',
      '/api/channels/test',
      { ...body, config: { ...body.config, password: `${PASSWORD}-wrong` } },
      admin,
    );
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/refused the sign-in: 535/);
    expect(res.body.error).not.toContain(PASSWORD);
    expect(res.body.error).not.toContain(Buffer.from(`\0${USER}\0${PASSWORD}-wrong`).toString('base64'));
  });

  it('alerts by mail when a sensor with a JSON check goes down, and records a refused delivery', async () => {
    smtp.received.splice(0);
    const channel = await call<{ id: number }>(
      t,
      'POST',
      '/api/channels',
      email({ name: 'alerts', title_template: '{{.Name}} is {{.Status}}' }),
      admin,
    );
    const sensor = await call<{ id: number }>(
      t,
      'POST',
      '/api/sensors',
      {
        name: 'api health',
        type: 'http',
        target: healthUrl,
        retries: 1,
        options: { json_path: '$.status', json_expected: 'ok' },
        channels: [channel.body.id],
      },
      admin,
    );
    expect(sensor.status).toBe(201);
    const probed = await call<{ success: boolean; message: string }>(
      t,
      'POST',
      `/api/sensors/${sensor.body.id}/probe`,
      undefined,
      admin,
    );
    expect(probed.body).toMatchObject({
      success: false,
      message: 'JSON $.status is "degraded", expected == "ok"',
    });
    await t.app
      .get(SensorRuntimeService)
      .record(
        sensor.body.id,
        { success: false, message: probed.body.message, latencyMs: 3, statusCode: 200 },
        clock.now(),
      );
    await t.app.get(DeliveryService).idle();
    const [mail] = await smtp.waitFor(1);
    const message = parseMessage(mail?.data ?? '');
    expect(message.headers['subject']).toBe('api health is down');
    const text = message.parts.find((p) => p.headers['content-type']?.startsWith('text/plain'))?.body ?? '';
    const html = message.parts.find((p) => p.headers['content-type']?.startsWith('text/html'))?.body ?? '';
    expect(text).toContain('JSON $.status is "degraded", expected == "ok"');
    expect(text).toContain(`https://status.example/sensors/${sensor.body.id}`);
    expect(html).toContain('JSON $.status is &quot;degraded&quot;, expected == &quot;ok&quot;');

    // A 4xx reply is not retried, and the channel shows it.
    const refusing = email({ name: 'refusing' });
    const bad = await call<{ id: number }>(
      t,
      'POST',
      '/api/channels',
      { ...refusing, config: { ...refusing.config, to: 'reject450@example.com' } },
      admin,
    );
    await call(t, 'PUT', `/api/sensors/${sensor.body.id}`, { channels: [bad.body.id] }, admin);
    clock.advance(60_000);
    const runtime = t.app.get(SensorRuntimeService);
    await runtime.record(
      sensor.body.id,
      { success: true, message: 'HTTP 200', latencyMs: 2, statusCode: 200 },
      clock.now(),
    );
    await t.app.get(DeliveryService).idle();
    const got = await call<{ last_error: string }>(
      t,
      'GET',
      `/api/channels/${bad.body.id}`,
      undefined,
      admin,
    );
    expect(got.body.last_error).toMatch(/refused the message: 450/);
  });
});

describe('JSON checks through the API', () => {
  let t: TestApp;
  let admin: Headers;
  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false });
    admin = await setupAdmin(t);
  });
  afterAll(() => t.close());

  const sensor = (options: Record<string, unknown>) => ({
    name: 'json',
    type: 'http',
    target: 'http://127.0.0.1:9/health',
    options,
  });

  it.each<[Record<string, unknown>, string]>([
    [
      { json_path: '$.a[' },
      "options.json_path is not a valid JSONPath expression: unclosed bracketed selection ('$.a[':4)",
    ],
    [
      { json_path: "$.a[?match(@.b, 'x.*')]" },
      "options.json_path is not a valid JSONPath expression: no such function 'match'",
    ],
    [{ json_expected: 'ok' }, 'options.json_expected needs options.json_path'],
    [
      { json_path: '$.a', json_operator: 'like' },
      'options.json_operator must be one of ==, !=, <, <=, >, >=, contains',
    ],
    [{ json_path: '$.a', json_operator: '<', json_expected: 'x' }, 'options.json_expected must be a number'],
  ])('refuses %p on save and on validate with 400 naming it', async (options, error) => {
    for (const path of ['/api/sensors', '/api/sensors/validate']) {
      const res = await call<{ error: string }>(t, 'POST', path, sensor(options), admin);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(error);
    }
  });

  it('accepts and stores a valid JSON check', async () => {
    const options = {
      json_path: "$.checks[?@.name == 'db'].state",
      json_operator: '!=',
      json_expected: 'down',
    };
    expect((await call(t, 'POST', '/api/sensors/validate', sensor(options), admin)).body).toEqual({
      ok: true,
    });
    const created = await call<{ options: Record<string, unknown> }>(
      t,
      'POST',
      '/api/sensors',
      sensor(options),
      admin,
    );
    expect(created.status).toBe(201);
    expect(created.body.options).toEqual(options);
  });
});
