import * as net from 'node:net';
import { Controller, Get, Module } from '@nestjs/common';
import { RequireAccess } from '../../src/core/http/access.decorator';
import { HTTP_TIME_LIMITS } from '../../src/core/http/time-limits';
import { Headers, setupAdmin } from './support/http';
import { httpRequest, rawRequest } from './support/raw-http';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

@Controller('api/test')
@RequireAccess('public')
class SlowProbeController {
  @Get('slow')
  async slow(): Promise<{ ok: true }> {
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { ok: true };
  }
}

@Module({ controllers: [SlowProbeController] })
class SlowProbeModule {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The real limits, scaled down so the tests need not wait 30 s; each test names the one it checks. */
const LIMITS = {
  headersMs: 1_000,
  requestMs: 1_500,
  restoreMs: 4_000,
  keepAliveMs: 800,
  checkIntervalMs: 100,
};

describe('slow clients', () => {
  let t: TestApp;
  let admin: Headers;

  beforeAll(async () => {
    t = await startTestApp({ timeLimits: LIMITS, slowRequestMs: 500 });
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    await t.close();
  });

  beforeEach(() => t.logs.splice(0));

  it('the defaults are the documented ones', () => {
    expect(HTTP_TIME_LIMITS).toMatchObject({ headersMs: 10_000, requestMs: 30_000, restoreMs: 600_000 });
    expect(HTTP_TIME_LIMITS.keepAliveMs).toBeLessThan(86_000);
  });

  it('a client sending its headers a byte a second gets 408 {error} and is closed', async () => {
    const res = await rawRequest(t.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', {
      trickle: 'X-Slow: ' + 'a'.repeat(60),
      trickleMs: 200,
      readMs: 20_000,
    });
    expect(res.closedBy).toBe('server');
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toEqual({ error: 'request headers not received within 1 seconds' });
    expect(t.logs.filter((l) => l.msg === 'http request')).toEqual([
      // Method and path are not known: the request line arrived in an earlier packet.
      expect.objectContaining({ status: 408, ip: '127.0.0.1', request_id: expect.any(String) }),
    ]);
  });

  it('a connection that never sends a request is closed', async () => {
    const res = await rawRequest(t.url, '', { readMs: 20_000 });
    expect(res.closedBy).toBe('server');
  });

  it('a client sending its body a byte a second gets 408 {error} and is closed', async () => {
    const head = httpRequest('POST', '/api/login', {
      'content-type': 'application/json',
      'content-length': '200',
    });
    const res = await rawRequest(t.url, head, { trickle: ' '.repeat(200), trickleMs: 200, readMs: 20_000 });
    expect(res.closedBy).toBe('server');
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toEqual({ error: 'request body not received within 1.5 seconds' });
    expect(res.headers.connection).toBe('close');
    expect(t.logs.filter((l) => l.msg === 'http request')).toEqual([
      expect.objectContaining({ status: 408, method: 'POST', path: '/api/login' }),
    ]);
    // The client was slow, not the database.
    expect(t.logs.filter((l) => l.msg === 'slow request')).toEqual([]);
  });

  it('a restore upload has its own, longer limit', async () => {
    const head = httpRequest('POST', '/api/restore', {
      'content-type': 'application/json',
      'content-length': '2000',
      ...admin,
    });
    const res = await rawRequest(t.url, head, { trickle: ' '.repeat(2000), trickleMs: 200, readMs: 20_000 });
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toEqual({ error: 'request body not received within 4 seconds' });
    expect(res.closedBy).toBe('server');
  });

  it('an idle keep-alive connection is closed after the keep-alive limit', async () => {
    const res = await rawRequest(t.url, httpRequest('GET', '/healthz', { connection: 'keep-alive' }), {
      readMs: 20_000,
    });
    expect(res.status).toBe(200);
    expect(res.closedBy).toBe('server');
  });

  it('a body that arrives in time is served normally', async () => {
    const body = JSON.stringify({ username: 'admin', password: 'wrong password here' });
    const head = httpRequest('POST', '/api/login', {
      'content-type': 'application/json',
      'content-length': String(body.length),
    });
    const res = await rawRequest(t.url, head, { trickle: body, trickleMs: 5, readMs: 20_000 });
    expect(res.status).toBe(401);
  });
});

describe('shutting down', () => {
  it('a request arriving on an open connection while the server closes is 503 {error}', async () => {
    const t = await startTestApp({ imports: [SlowProbeModule] });
    const socket = net.connect(Number(new URL(t.url).port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    // A request in flight keeps the connection from being reaped as idle when the close begins.
    socket.write(httpRequest('GET', '/api/test/slow', { connection: 'keep-alive' }));
    await sleep(100);
    const closing = t.app.getHttpAdapter().getInstance().close();
    await sleep(50);
    socket.write(httpRequest('GET', '/healthz', { connection: 'keep-alive' }));
    await closed;
    await closing;
    const text = Buffer.concat(received).toString();
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    const second = text.slice(text.indexOf('HTTP/1.1', 1));
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toContain('{"error":"the service is shutting down: try again in a moment"}');
    expect(t.logs.filter((l) => l.msg.startsWith('http request')).map((l) => [l.status, l.error])).toEqual([
      [200, undefined],
      [503, 'the server is closing'],
    ]);
    await t.close();
  });
});
