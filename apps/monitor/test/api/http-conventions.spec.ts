import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { RequireAccess } from '../../src/core/http/access.decorator';
import { GENERIC_SERVER_ERROR } from '../../src/core/http/error-response';
import { startTestApp, TestApp } from './support/test-app';

class EchoDto {
  @IsString() name!: string;
  @IsInt() @Min(1) @Max(86400) interval!: number;
}

/** Routes that exist only in this test, to exercise the conventions every endpoint shares. */
@Controller('api/test')
@RequireAccess('public')
class ConventionProbeController {
  @Post('echo')
  echo(@Body() body: EchoDto): EchoDto {
    return body;
  }

  @Get('explode')
  explode(): never {
    throw new Error('disk on fire at /secret/path');
  }

  @Get('large')
  large(): { items: string[] } {
    return { items: Array.from({ length: 500 }, (_, i) => `item number ${i}`) };
  }

  @Get('slow')
  async slow(): Promise<{ ok: true }> {
    await new Promise((resolve) => setTimeout(resolve, 120));
    return { ok: true };
  }
}

@Module({ controllers: [ConventionProbeController] })
class ConventionProbeModule {}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** Long enough that @fastify/static sends the compressed copies (it skips files under 1 KiB). */
const MAIN_JS = `console.log(${JSON.stringify('x'.repeat(2048))});`;

describe('HTTP conventions', () => {
  let t: TestApp;
  let dashboardDir: string;

  beforeAll(async () => {
    dashboardDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-dashboard-'));
    fs.writeFileSync(
      path.join(dashboardDir, 'index.html'),
      '<!doctype html><title>Monitor</title><app-root></app-root>',
    );
    fs.writeFileSync(path.join(dashboardDir, 'main-ABCDEFGH.js'), MAIN_JS);
    fs.writeFileSync(path.join(dashboardDir, 'main-ABCDEFGH.js.br'), zlib.brotliCompressSync(MAIN_JS));
    fs.writeFileSync(path.join(dashboardDir, 'main-ABCDEFGH.js.gz'), zlib.gzipSync(MAIN_JS));
    t = await startTestApp({ imports: [ConventionProbeModule], dashboardDir, slowRequestMs: 50 });
  });

  afterAll(async () => {
    await t.close();
    fs.rmSync(dashboardDir, { recursive: true, force: true });
  });

  beforeEach(() => t.logs.splice(0));

  const requestLines = () =>
    t.logs.filter((l) => l.msg === 'http request' || l.msg === 'http request failed');

  it('GET /healthz answers status, version and uptime without authentication', async () => {
    const res = await t.request('/healthz');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['status', 'uptime', 'version']);
    expect(body.status).toBe('ok');
    expect(typeof body.uptime).toBe('number');
  });

  it('GET /api/version answers version, build, commit, build_date and channel', async () => {
    const res = await t.request('/api/version');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['build', 'build_date', 'channel', 'commit', 'version']);
    expect(['release', 'dev', 'local']).toContain(body.channel);
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8'));
    expect(body.version).toBe(pkg.version);
  });

  it('an unknown API path is 404 {error}', async () => {
    for (const [method, p] of [
      ['GET', '/api/nothing-here'],
      ['POST', '/api/nothing-here'],
      ['DELETE', '/healthz'],
    ]) {
      const res = await t.request(p, { method });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: expect.any(String) });
    }
  });

  it('a valid body passes validation and is transformed', async () => {
    const res = await t.request('/api/test/echo', json({ name: 'web', interval: 30 }));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ name: 'web', interval: 30 });
  });

  it('an unknown field is 400 naming the field', async () => {
    const res = await t.request('/api/test/echo', json({ name: 'web', interval: 30, colour: 'red' }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'unknown field "colour"' });
  });

  it('a failed rule is 400 naming the field', async () => {
    const res = await t.request('/api/test/echo', json({ name: 'web', interval: 0 }));
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: string };
    expect(error).toContain('interval');
  });

  it('malformed JSON is 400 {error}', async () => {
    const res = await t.request('/api/test/echo', json('{"name": "web",'));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatch(/JSON/);
  });

  it('a body over 1 MiB is 413 {error}', async () => {
    const res = await t.request('/api/test/echo', json({ name: 'x'.repeat(1024 * 1024 + 10), interval: 1 }));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: expect.stringMatching(/too large/i) });
  });

  it('a 5xx tells the client a generic message and logs the cause at error level', async () => {
    const res = await t.request('/api/test/explode');
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string };
    expect(body).toEqual({ error: GENERIC_SERVER_ERROR });
    expect(JSON.stringify(body)).not.toContain('secret');
    const lines = requestLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'error',
      msg: 'http request failed',
      method: 'GET',
      path: '/api/test/explode',
      status: 500,
      message: GENERIC_SERVER_ERROR,
      error: expect.stringContaining('disk on fire'),
    });
    expect(typeof lines[0].duration_ms).toBe('number');
  });

  it('every request produces exactly one info line with method, path, status and duration', async () => {
    await t.request('/healthz');
    await t.request('/api/version?secret=1');
    await t.request('/api/missing');
    const lines = requestLines();
    expect(lines.map((l) => [l.level, l.method, l.path, l.status])).toEqual([
      ['info', 'GET', '/healthz', 200],
      ['info', 'GET', '/api/version', 200],
      ['info', 'GET', '/api/missing', 404],
    ]);
    for (const line of lines) {
      expect(typeof line.duration_ms).toBe('number');
      expect(typeof line.time).toBe('string');
      expect(line).not.toHaveProperty('user_agent');
    }
  });

  it('a request slower than the threshold also logs a slow request warning with a hint', async () => {
    await t.request('/api/test/slow');
    const slow = t.logs.filter((l) => l.msg === 'slow request');
    expect(slow).toHaveLength(1);
    expect(slow[0]).toMatchObject({ level: 'warn', path: '/api/test/slow', status: 200 });
    expect(String(slow[0].hint)).toMatch(/database may be locked/);
    expect(requestLines()).toHaveLength(1);
  });

  it('security headers, including a CSP naming no third party, are on every response', async () => {
    for (const p of ['/healthz', '/api/missing', '/', '/main-ABCDEFGH.js', '/api/openapi.json']) {
      const res = await t.request(p);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/https?:/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
    }
  });

  it('serves the dashboard at / and falls back to index.html for deep links, not for /api', async () => {
    for (const p of ['/', '/about', '/sensors/12/history']) {
      const res = await t.request(p);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<app-root>');
    }
    const asset = await t.request('/main-ABCDEFGH.js');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(await asset.text()).toBe(MAIN_JS);
  });

  it('sends the precompressed copy of an asset the browser accepts, else the file itself', async () => {
    const get = (encoding: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.get(
          `${t.url}/main-ABCDEFGH.js`,
          { headers: { 'accept-encoding': encoding } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          },
        );
        req.on('error', reject);
      });
    const br = await get('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary?.toLowerCase()).toContain('accept-encoding');
    expect(br.headers['cache-control']).toContain('immutable');
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(MAIN_JS);
    const gz = await get('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).toString()).toBe(MAIN_JS);
    const plain = await get('identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(MAIN_JS);
  });

  it('compresses a JSON answer of 1 KiB or more for a client that accepts it, not a small one', async () => {
    const get = (path: string, encoding: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.get(`${t.url}${path}`, { headers: { 'accept-encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
      });
    const plain = await get('/api/test/large', 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const expected = JSON.parse(plain.body.toString()) as { items: string[] };
    expect(expected.items).toHaveLength(500);

    const br = await get('/api/test/large', 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
    expect(JSON.parse(zlib.brotliDecompressSync(br.body).toString())).toEqual(expected);
    const gz = await get('/api/test/large', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(gz.body).toString())).toEqual(expected);

    const small = await get('/healthz', 'gzip, deflate, br');
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString())).toMatchObject({ status: 'ok' });
  });

  it('answers unknown API paths with JSON, not the dashboard', async () => {
    const api = await t.request('/api/sensors-that-do-not-exist');
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/json');
  });

  it('publishes the OpenAPI document and the browsable docs', async () => {
    const res = await t.request('/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/api/version']));
    const docs = await t.request('/api/docs');
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });
});

describe('request log at debug level', () => {
  it('adds per-request detail to the one line', async () => {
    const t = await startTestApp({ logLevel: 'debug' });
    try {
      await t.request('/healthz', { headers: { 'user-agent': 'probe-agent/1.0' } });
      const lines = t.logs.filter((l) => l.msg === 'http request');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ remote: '127.0.0.1', user_agent: 'probe-agent/1.0', status: 200 });
    } finally {
      await t.close();
    }
  });
});
