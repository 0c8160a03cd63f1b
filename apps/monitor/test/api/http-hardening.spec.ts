import { Controller, Get, Module } from '@nestjs/common';
import { generate } from 'otplib';
import { RequireAccess } from '../../src/core/http/access.decorator';
import { MAX_JSON_DEPTH } from '../../src/core/http/json-body';
import { ADMIN, call, Headers, setupAdmin } from './support/http';
import { httpRequest, rawRequest } from './support/raw-http';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

@Controller('api/test')
@RequireAccess('public')
class FailingProbeController {
  @Get('explode')
  explode(): never {
    throw new Error('disk on fire');
  }
}

@Module({ controllers: [FailingProbeController] })
class FailingProbeModule {}

const nested = (levels: number): string =>
  `{"username": ${'['.repeat(levels)}${']'.repeat(levels)}, "password": "x"}`;

const postRaw = (t: TestApp, path: string, body: string, headers: Headers = {}) =>
  t.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

const requestLines = (t: TestApp) =>
  t.logs.filter((l) => l.msg === 'http request' || l.msg === 'http request failed');

describe('hostile request bodies', () => {
  let t: TestApp;
  let admin: Headers;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  beforeEach(() => t.logs.splice(0));

  it('a body nested 1,500 levels deep is 400 naming the limit, before any account exists', async () => {
    for (const path of ['/api/login', '/api/setup']) {
      const res = await postRaw(t, path, nested(1500));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: `JSON body nested deeper than ${MAX_JSON_DEPTH} levels` });
    }
    expect(t.logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('deep nesting is refused on an authenticated route too, and the limit itself is accepted', async () => {
    admin = await setupAdmin(t);
    const deep = await postRaw(t, '/api/sensors', nested(1500), admin);
    expect(deep.status).toBe(400);
    expect(await deep.json()).toEqual({ error: expect.stringContaining(`${MAX_JSON_DEPTH} levels`) });
    // Exactly at the limit the body is parsed and reaches validation (which names the field).
    const atLimit = await postRaw(t, '/api/login', nested(MAX_JSON_DEPTH - 1));
    expect(atLimit.status).toBe(400);
    expect(((await atLimit.json()) as { error: string }).error).toMatch(/username/);
  });

  it('brackets inside strings do not count as nesting', async () => {
    const res = await postRaw(
      t,
      '/api/login',
      JSON.stringify({ username: '['.repeat(2000), password: '{'.repeat(2000) }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/username/);
  });

  it('a deeply nested channel template is 400, not a stack overflow', async () => {
    // As deep as the 16,000-character limit on a template allows.
    const template = '{{if 1}}'.repeat(1000) + '{{end}}'.repeat(1000);
    const res = await call<{ error: string }>(
      t,
      'POST',
      '/api/channels',
      { name: 'deep', type: 'webhook', config: { url: 'http://127.0.0.1:9/' }, body_template: template },
      admin,
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/body_template: .*nesting too deep/);
  });

  it('a lone surrogate is refused with 400 naming the field, in values and in keys', async () => {
    const cases: [string, string][] = [
      ['{"name": "web\\ud800", "type": "http"}', 'name'],
      ['{"name": "web", "options": {"headers": {"X-A": "\\udc00x"}}}', 'options.headers.X-A'],
      ['{"name": "web", "tags": ["ok", "\\ud83d"]}', 'tags.1'],
    ];
    for (const [body, field] of cases) {
      const res = await postRaw(t, '/api/sensors', body, admin);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: `"${field}" is not valid Unicode text (lone surrogate)` });
    }
    const key = await postRaw(t, '/api/sensors', '{"name": "web", "options": {"\\ud800": 1}}', admin);
    expect(key.status).toBe(400);
    expect(await key.json()).toEqual({
      error: 'a field name inside "options" is not valid Unicode text (lone surrogate)',
    });
    // A well-formed pair is fine, and stored as sent.
    const ok = await postRaw(
      t,
      '/api/sites',
      JSON.stringify({ name: 'caf\u00e9 \ud83d\ude00' }).replace('\ud83d\ude00', '\\ud83d\\ude00'),
      admin,
    );
    expect(ok.status).toBe(201);
    const site = (await ok.json()) as { id: number; name: string };
    expect(site.name).toBe('caf\u00e9 \ud83d\ude00');
    const list = await call<{ sites: { id: number; name: string }[] }>(
      t,
      'GET',
      '/api/sites',
      undefined,
      admin,
    );
    expect(list.body.sites.find((s) => s.id === site.id)?.name).toBe('caf\u00e9 \ud83d\ude00');
  });

  it('a body that is not UTF-8 is refused rather than stored with replacement characters', async () => {
    const res = await t.request('/api/sites', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...admin },
      body: Buffer.concat([Buffer.from('{"name": "caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'request body is not valid UTF-8' });
  });
});

describe('errors raised by the HTTP framework and the HTTP parser', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  beforeEach(() => t.logs.splice(0));

  const expectOneLogLine = (method: string, path: string, status: number) => {
    const lines = requestLines(t);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', method, path, status, ip: '127.0.0.1' });
    expect(lines[0].request_id).toEqual(expect.any(String));
  };

  it('bad percent-encoding in the path is 400 {error}', async () => {
    const res = await rawRequest(t.url, httpRequest('GET', '/api/sensors/%ff'));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: 'the path is not valid percent-encoded UTF-8' });
    expect(res.headers['x-request-id']).toBeTruthy();
    expectOneLogLine('GET', '/api/sensors/%ff', 400);
  });

  it('a path parameter over the router limit is 414 {error}', async () => {
    // (A GET falls through to the dashboard's catch-all, which answers 404 {error}.)
    const res = await t.request(`/api/sensors/${'1'.repeat(150)}`, { method: 'DELETE' });
    expect(res.status).toBe(414);
    expect(await res.json()).toEqual({ error: 'a path segment is longer than 100 characters' });
    expectOneLogLine('DELETE', `/api/sensors/${'1'.repeat(150)}`, 414);
  });

  it('headers over the limit are 431 {error} from the HTTP parser, logged like any request', async () => {
    const res = await rawRequest(t.url, httpRequest('GET', '/healthz', { 'x-big': 'a'.repeat(20_000) }));
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toContain('application/json');
    expect(JSON.parse(res.body)).toEqual({ error: 'request headers are too large' });
    const lines = requestLines(t);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', status: 431, ip: '127.0.0.1' });
  });

  it('a request the HTTP parser cannot read is 400 {error}', async () => {
    const res = await rawRequest(t.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: expect.stringMatching(/malformed HTTP request/) });
    expect(requestLines(t)).toHaveLength(1);
  });

  it('unknown routes, malformed JSON, an empty JSON body and a wrong content type are {error}', async () => {
    const cases: [RequestInit & { path: string }, number][] = [
      [{ path: '/api/nothing', method: 'GET' }, 404],
      [
        { path: '/api/login', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' },
        400,
      ],
      [
        { path: '/api/login', method: 'POST', headers: { 'content-type': 'application/json' }, body: '' },
        400,
      ],
      [
        { path: '/api/login', method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<a/>' },
        415,
      ],
    ];
    for (const [{ path, ...init }, status] of cases) {
      const res = await t.request(path, init);
      expect(res.status).toBe(status);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['error']);
    }
    expect(requestLines(t)).toHaveLength(cases.length);
  });
});

describe('over-limit bodies', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('every over-cap upload sent without Expect reads its 413 {error}', async () => {
    const size = 4 * 1024 * 1024;
    const pieces = Array.from({ length: size / (128 * 1024) }, () => Buffer.alloc(128 * 1024, 'a'));
    const outcomes: string[] = [];
    for (let i = 0; i < 50; i++) {
      const head = httpRequest('POST', '/api/login', {
        'content-type': 'application/json',
        'content-length': String(size),
      });
      const res = await rawRequest(t.url, head, { pieces });
      outcomes.push(res.status === 413 && JSON.parse(res.body).error ? '413' : `${res.status} ${res.error}`);
    }
    expect(outcomes.filter((o) => o !== '413')).toEqual([]);
  });

  it('also when the size is only known once the stream passes the cap (chunked)', async () => {
    const chunk = Buffer.alloc(128 * 1024, 'a');
    const piece = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from('\r\n'),
    ]);
    const pieces = [...Array.from({ length: 32 }, () => piece), Buffer.from('0\r\n\r\n')];
    const outcomes: string[] = [];
    for (let i = 0; i < 30; i++) {
      const head = httpRequest('POST', '/api/login', {
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
      });
      const res = await rawRequest(t.url, head, { pieces });
      outcomes.push(res.status === 413 ? '413' : `${res.status} ${res.error}`);
    }
    expect(outcomes.filter((o) => o !== '413')).toEqual([]);
  });
});

describe('who is calling', () => {
  let t: TestApp;

  afterEach(async () => {
    await t.close();
  });

  it('every answer carries X-Request-Id: the incoming one when sane, else a generated one', async () => {
    t = await startTestApp();
    const kept = await t.request('/healthz', { headers: { 'x-request-id': 'edge-42.a:b_c' } });
    expect(kept.headers.get('x-request-id')).toBe('edge-42.a:b_c');
    const replaced = await t.request('/api/nothing', { headers: { 'x-request-id': 'bad id\twith space' } });
    expect(replaced.status).toBe(404);
    const generated = replaced.headers.get('x-request-id') ?? '';
    // A fresh UUID: matching it proves the insane id was not kept (a UUID may hold "bad" by chance).
    expect(generated).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const tooLong = await t.request('/healthz', { headers: { 'x-request-id': 'a'.repeat(129) } });
    expect(tooLong.headers.get('x-request-id')).not.toBe('a'.repeat(129));
    const lines = requestLines(t);
    expect(lines.map((l) => l.request_id)).toEqual(['edge-42.a:b_c', generated, expect.any(String)]);
  });

  it('a 5xx log line carries the request id the answer names', async () => {
    t = await startTestApp({ imports: [FailingProbeModule] });
    const res = await t.request('/api/test/explode', { headers: { 'x-request-id': 'trace-500' } });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('trace-500');
    expect(t.logs.filter((l) => l.msg === 'http request failed')).toEqual([
      expect.objectContaining({ level: 'error', status: 500, request_id: 'trace-500', ip: '127.0.0.1' }),
    ]);
  });

  it('the log line takes the address from X-Forwarded-For only with trust_proxy', async () => {
    t = await startTestApp();
    await t.request('/healthz', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(requestLines(t)[0]).toMatchObject({ ip: '127.0.0.1' });
    await t.close();
    t = await startTestApp({ env: { MONITOR_TRUST_PROXY: 'true' } });
    await t.request('/healthz', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(requestLines(t)[0]).toMatchObject({ ip: '203.0.113.9' });
    // Also for a request the router refuses before any hook runs.
    await rawRequest(
      t.url,
      httpRequest('GET', '/api/sensors/%ff', { 'x-forwarded-for': '203.0.113.7, 10.0.0.1' }),
    );
    expect(requestLines(t)[1]).toMatchObject({ status: 400, ip: '203.0.113.7' });
  });

  it('failed sign-ins log one warn line with the username tried and the address, never the password', async () => {
    t = await startTestApp();
    await setupAdmin(t);
    t.logs.splice(0);
    await call(t, 'POST', '/api/login', { username: 'admin', password: 'hunter2-first' });
    await call(t, 'POST', '/api/login', { username: 'nob\u001bdy\nx', password: 'hunter2-second' });
    for (let i = 0; i < 3; i++)
      await call(t, 'POST', '/api/login', { username: 'admin', password: 'nope-nope' });
    const limited = await call(t, 'POST', '/api/login', ADMIN);
    expect(limited.status).toBe(429);
    const failed = t.logs.filter((l) => l.msg === 'sign-in failed');
    expect(failed.map((l) => [l.level, l.username, l.ip, l.reason])).toEqual([
      ['warn', 'admin', '127.0.0.1', 'wrong password'],
      ['warn', 'nob?dy?x', '127.0.0.1', 'unknown user'],
      ['warn', 'admin', '127.0.0.1', 'wrong password'],
      ['warn', 'admin', '127.0.0.1', 'wrong password'],
      ['warn', 'admin', '127.0.0.1', 'wrong password'],
      ['warn', 'admin', '127.0.0.1', 'rate limited'],
    ]);
    // The line as written matches the fail2ban filter in the README (pino keeps this field order).
    for (const line of failed)
      expect(JSON.stringify(line)).toMatch(
        /^\{"level":"warn","time":"[^"]+","ip":"127\.0\.0\.1",.*"msg":"sign-in failed"\}$/,
      );
    const text = JSON.stringify(t.logs);
    for (const secret of ['hunter2', 'nope-nope', ADMIN.password]) expect(text).not.toContain(secret);
  });

  it('a failed second step logs the account of the challenge, or - for a challenge that is not valid', async () => {
    t = await startTestApp();
    const admin = await setupAdmin(t);
    const start = await call<{ secret: string }>(t, 'POST', '/api/me/totp/start', undefined, admin);
    const confirmed = await call(
      t,
      'POST',
      '/api/me/totp/confirm',
      { code: await generate({ secret: start.body.secret }) },
      admin,
    );
    expect(confirmed.status).toBe(200);
    const login = await call<{ challenge: string }>(t, 'POST', '/api/login', ADMIN);
    t.logs.splice(0);
    const wrong = await generate({ secret: start.body.secret, epoch: Math.floor(Date.now() / 1000) + 3600 });
    expect(
      (await call(t, 'POST', '/api/login/totp', { challenge: login.body.challenge, code: wrong })).status,
    ).toBe(401);
    expect((await call(t, 'POST', '/api/login/totp', { challenge: 'forged', code: wrong })).status).toBe(401);
    expect(t.logs.filter((l) => l.msg === 'sign-in failed').map((l) => [l.username, l.reason])).toEqual([
      ['admin', 'invalid code'],
      ['-', 'expired challenge'],
    ]);
  });
});
