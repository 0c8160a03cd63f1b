import * as http from 'node:http';
import * as https from 'node:https';
import type { ProbeOutcome, ProbeRequest } from '../probe';
import { makeAuthority, makeServerCert, type KeyAndCert } from '../testing/certs';
import { closedPort, listen, silentServer, stop, UNRESOLVABLE_HOST } from '../testing/net';
import { HttpProbe, MAX_BODY_BYTES, parseExpectedStatus } from './http.probe';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  remotePort: number;
}

/** One handler for every test: the path chooses the answer; every request is recorded. */
function handler(seen: Seen[]): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        remotePort: req.socket.remotePort ?? 0,
      });
      const url = new URL(req.url ?? '/', 'http://x');
      const status = url.searchParams.get('status');
      switch (url.pathname) {
        case '/status':
          res.writeHead(Number(status)).end('status page');
          return;
        case '/redirect':
          res.writeHead(302, { location: '/page' }).end();
          return;
        case '/loop':
          res.writeHead(301, { location: '/loop' }).end();
          return;
        case '/chain':
          res.writeHead(301, { location: `/chain?n=${Number(url.searchParams.get('n')) + 1}` }).end();
          return;
        case '/big': {
          // 2 MiB of filler, then the word: beyond what the probe reads.
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write(Buffer.alloc(2 * MAX_BODY_BYTES, 'a'));
          res.end('needle');
          return;
        }
        default:
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<html><body>All systems operational</body></html>');
      }
    });
  };
}

describe('HttpProbe', () => {
  const probe = new HttpProbe();
  const seen: Seen[] = [];
  const server = http.createServer(handler(seen));
  let base = '';

  function run(target: string, options: ProbeRequest['options'] = {}, timeoutMs = 5000, p = probe) {
    return p.run({ target, options, timeoutMs, signal: new AbortController().signal });
  }

  beforeAll(async () => {
    base = `http://127.0.0.1:${await listen(server)}`;
  });
  afterAll(async () => {
    await probe.close();
    await stop(server);
  });
  beforeEach(() => {
    seen.length = 0;
  });

  it('succeeds with HTTP 200, the status code and a measured latency', async () => {
    const outcome = await run(`${base}/page`);
    expect(outcome).toEqual({
      success: true,
      message: 'HTTP 200',
      latencyMs: expect.any(Number),
      statusCode: 200,
    });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/page', body: '' });
    expect(seen[0].headers['user-agent']).toBe('monitor-uptime-probe');
  });

  it('fails with HTTP <status> outside the expected range, and keeps the status code', async () => {
    await expect(run(`${base}/status?status=503`)).resolves.toEqual({
      success: false,
      message: 'HTTP 503',
      latencyMs: expect.any(Number),
      statusCode: 503,
    });
    await expect(run(`${base}/status?status=404`)).resolves.toMatchObject({
      success: false,
      message: 'HTTP 404',
    });
  });

  it('judges the status against expected_status ranges and single codes', async () => {
    const expected = { expected_status: '200-299, 418' };
    await expect(run(`${base}/status?status=418`, expected)).resolves.toMatchObject({ success: true });
    await expect(run(`${base}/status?status=204`, expected)).resolves.toMatchObject({ success: true });
    await expect(run(`${base}/status?status=302`, expected)).resolves.toMatchObject({
      success: false,
      message: 'HTTP 302',
    });
    await expect(run(`${base}/status?status=500`, { expected_status: '500' })).resolves.toMatchObject({
      success: true,
      message: 'HTTP 500',
    });
  });

  it('falls back to the defaults when options arrive with the wrong type', async () => {
    const options = { expected_status: 200, follow_redirects: 'no', method: 7, keyword: false, timeout: '3' };
    await expect(run(`${base}/redirect`, options)).resolves.toMatchObject({
      success: true,
      message: 'HTTP 200',
    });
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /redirect', 'GET /page']);
  });

  it('follows redirects by default and reports the final status', async () => {
    await expect(run(`${base}/redirect`)).resolves.toMatchObject({ success: true, statusCode: 200 });
    expect(seen.map((r) => r.url)).toEqual(['/redirect', '/page']);
  });

  it('does not follow redirects when follow_redirects is false', async () => {
    const options = { follow_redirects: false };
    await expect(run(`${base}/redirect`, options)).resolves.toMatchObject({
      success: true,
      message: 'HTTP 302',
    });
    expect(seen.map((r) => r.url)).toEqual(['/redirect']);
    await expect(run(`${base}/redirect`, { ...options, expected_status: '200' })).resolves.toMatchObject({
      success: false,
      message: 'HTTP 302',
      statusCode: 302,
    });
  });

  it('fails on a redirect loop and on too many redirects instead of calling the last 3xx a success', async () => {
    await expect(run(`${base}/loop`)).resolves.toMatchObject({ success: false, message: 'redirect loop' });
    expect(seen).toHaveLength(1);
    seen.length = 0;
    const outcome = await run(`${base}/chain?n=0`);
    expect(outcome).toMatchObject({
      success: false,
      message: 'HTTP 301, more than 10 redirects',
      statusCode: 301,
    });
    expect(seen).toHaveLength(11);
  });

  it('looks for a keyword in the body', async () => {
    await expect(run(`${base}/page`, { keyword: 'operational' })).resolves.toMatchObject({
      success: true,
      message: 'HTTP 200',
    });
    await expect(run(`${base}/page`, { keyword: 'outage' })).resolves.toEqual({
      success: false,
      message: 'keyword "outage" not found',
      latencyMs: expect.any(Number),
      statusCode: 200,
    });
  });

  it('inverts the keyword: present is a failure', async () => {
    await expect(run(`${base}/page`, { keyword: 'outage', invert_keyword: true })).resolves.toMatchObject({
      success: true,
    });
    await expect(
      run(`${base}/page`, { keyword: 'operational', invert_keyword: true }),
    ).resolves.toMatchObject({
      success: false,
      message: 'keyword "operational" found',
    });
  });

  it('reads at most 1 MiB of a body when looking for a keyword', async () => {
    await expect(run(`${base}/big`, { keyword: 'needle' })).resolves.toMatchObject({
      success: false,
      message: 'keyword "needle" not found',
    });
  });

  it('sends the configured method, headers and body', async () => {
    const outcome = await run(`${base}/api`, {
      method: 'put',
      headers: { 'X-Token': 'abc', 'Content-Type': 'application/json', 'User-Agent': 'custom' },
      body: '{"ping":true}',
    });
    expect(outcome).toMatchObject({ success: true, message: 'HTTP 200' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'PUT', url: '/api', body: '{"ping":true}' });
    expect(seen[0].headers).toMatchObject({
      'x-token': 'abc',
      'content-type': 'application/json',
      'user-agent': 'custom',
    });
  });

  it('supports HEAD', async () => {
    await expect(run(`${base}/page`, { method: 'HEAD' })).resolves.toMatchObject({ success: true });
    expect(seen[0].method).toBe('HEAD');
  });

  it('reuses one kept-alive connection across sequential runs', async () => {
    const fresh = http.createServer(handler([]));
    let connections = 0;
    fresh.on('connection', () => connections++);
    const port = await listen(fresh);
    try {
      for (const options of [{}, {}, { keyword: 'systems' }, { follow_redirects: false }, {}]) {
        await expect(run(`http://127.0.0.1:${port}/page`, options)).resolves.toMatchObject({ success: true });
        // Runs are seconds apart in service; undici frees the connection a tick after the body ends.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(connections).toBe(1);
    } finally {
      await stop(fresh);
    }
  });

  it('times out against a server that never answers, within the time-out', async () => {
    const silent = silentServer();
    const port = await listen(silent);
    try {
      const started = Date.now();
      const outcome = await run(`http://127.0.0.1:${port}/`, {}, 1000);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(outcome).toEqual({
        success: false,
        message: 'timed out after 1 s',
        latencyMs: null,
        statusCode: null,
      });
    } finally {
      await stop(silent);
    }
  });

  it('reports a refused connection', async () => {
    const port = await closedPort();
    await expect(run(`http://127.0.0.1:${port}/`)).resolves.toEqual({
      success: false,
      message: 'connection refused',
      latencyMs: null,
      statusCode: null,
    });
  });

  it('reports a host name that does not resolve', async () => {
    await expect(run(`http://${UNRESOLVABLE_HOST}/`)).resolves.toMatchObject({
      success: false,
      message: `cannot resolve host ${UNRESOLVABLE_HOST}`,
    });
  });

  it('stops early when the caller aborts', async () => {
    const silent = silentServer();
    const port = await listen(silent);
    try {
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 100);
      const outcome = await probe.run({
        target: `http://127.0.0.1:${port}/`,
        options: {},
        timeoutMs: 5000,
        signal: controller.signal,
      });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(outcome).toMatchObject({ success: false, message: 'probe cancelled' });
    } finally {
      await stop(silent);
    }
  });

  it('never throws on a malformed target', async () => {
    await expect(run('not a url')).resolves.toMatchObject({
      success: false,
      message: 'target is not a valid URL',
    });
    await expect(run('ftp://127.0.0.1/')).resolves.toMatchObject({ success: false });
  });

  it('works over IPv6 loopback', async () => {
    const server6 = http.createServer(handler(seen));
    let port: number;
    try {
      port = await listen(server6, '::1');
    } catch {
      return; // no IPv6 on this machine
    }
    try {
      await expect(run(`http://[::1]:${port}/page`)).resolves.toMatchObject({
        success: true,
        message: 'HTTP 200',
      });
    } finally {
      await stop(server6);
    }
  });
});

describe('HttpProbe over TLS', () => {
  let authority: KeyAndCert;
  const servers: https.Server[] = [];
  const probes: HttpProbe[] = [];

  /** An HTTPS server answering 200 with the given certificate; returns its base URL. */
  async function serve(pair: KeyAndCert): Promise<string> {
    const server = https.createServer({ key: pair.key, cert: pair.cert }, (_req, res) =>
      res.end('secure ok'),
    );
    servers.push(server);
    return `https://localhost:${await listen(server)}`;
  }

  function probeTrusting(ca?: string): HttpProbe {
    const probe = new HttpProbe(ca ? { ca } : {});
    probes.push(probe);
    return probe;
  }

  function run(
    probe: HttpProbe,
    target: string,
    options: ProbeRequest['options'] = {},
  ): Promise<ProbeOutcome> {
    return probe.run({ target, options, timeoutMs: 5000, signal: new AbortController().signal });
  }

  const DATE = /^\d{4}-\d{2}-\d{2}$/;

  beforeAll(async () => {
    authority = await makeAuthority();
  });
  afterAll(async () => {
    await Promise.all(probes.map((probe) => probe.close()));
    await Promise.all(servers.map((server) => stop(server)));
  });

  it('rejects a self-signed certificate as signed by an unknown authority', async () => {
    const url = await serve(await makeServerCert());
    await expect(run(probeTrusting(), `${url}/`)).resolves.toEqual({
      success: false,
      message: 'certificate signed by unknown authority',
      latencyMs: null,
      statusCode: null,
    });
  });

  it('accepts it with insecure_skip_verify, per sensor only', async () => {
    const url = await serve(await makeServerCert());
    const probe = probeTrusting();
    await expect(run(probe, `${url}/`, { insecure_skip_verify: true })).resolves.toMatchObject({
      success: true,
      message: 'HTTP 200',
    });
    // The insecure sensor's open connection must not let a verifying sensor through.
    await expect(run(probe, `${url}/`)).resolves.toMatchObject({
      success: false,
      message: 'certificate signed by unknown authority',
    });
    await expect(run(probe, `${url}/`, { insecure_skip_verify: false })).resolves.toMatchObject({
      success: false,
    });
  });

  it('accepts a certificate from a trusted authority', async () => {
    const url = await serve(await makeServerCert({}, authority));
    await expect(run(probeTrusting(authority.cert), `${url}/`, { keyword: 'secure' })).resolves.toMatchObject(
      {
        success: true,
        message: 'HTTP 200',
        statusCode: 200,
      },
    );
  });

  it('names the date of an expired certificate', async () => {
    const pair = await makeServerCert({ fromDays: -30, toDays: -2 }, authority);
    const url = await serve(pair);
    const outcome = await run(probeTrusting(authority.cert), `${url}/`);
    expect(outcome.success).toBe(false);
    const expiry = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    expect([expiry, new Date(Date.parse(expiry) + 86_400_000).toISOString().slice(0, 10)]).toContain(
      outcome.message.replace('certificate expired on ', ''),
    );
    expect(outcome.message).toMatch(/^certificate expired on \d{4}-\d{2}-\d{2}$/);
  });

  it('fails within cert_warn_days and reports the days left otherwise', async () => {
    const url = await serve(await makeServerCert({ toDays: 5.5 }, authority));
    const probe = probeTrusting(authority.cert);
    const warned = await run(probe, `${url}/`, { cert_warn_days: 14 });
    expect(warned).toMatchObject({ success: false, statusCode: 200 });
    const [, days, date] = /^certificate expires in (\d+) days \((.+)\)$/.exec(warned.message) ?? [];
    expect(days).toBe('5');
    expect(date).toMatch(DATE);
    await expect(run(probe, `${url}/`, { cert_warn_days: 3 })).resolves.toMatchObject({
      success: true,
      message: `HTTP 200, certificate expires in 5 days (${date})`,
    });
    const plain = await run(probe, `${url}/`);
    expect(plain).toMatchObject({ success: true, message: 'HTTP 200' });
    // The certificate's end, for GET /metrics, whether or not it made the probe fail.
    expect(Math.abs(plain.certExpiresAt! - (Date.now() + 5.5 * 86_400_000))).toBeLessThan(3_600_000);
    expect(warned.certExpiresAt).toBe(plain.certExpiresAt);
  });

  it('applies cert_warn_days to a certificate it was told not to verify', async () => {
    const url = await serve(await makeServerCert({ fromDays: -30, toDays: -1 }));
    const probe = probeTrusting();
    await expect(run(probe, `${url}/`, { insecure_skip_verify: true })).resolves.toMatchObject({
      success: true,
    });
    await expect(
      run(probe, `${url}/`, { insecure_skip_verify: true, cert_warn_days: 7 }),
    ).resolves.toMatchObject({ success: false, message: expect.stringMatching(/^certificate expired on /) });
  });

  it('rejects a certificate issued for another name', async () => {
    const pair = await makeServerCert({}, authority);
    const server = https.createServer({ key: pair.key, cert: pair.cert }, (_req, res) => res.end());
    servers.push(server);
    // 127.0.0.2 is loopback too, but not among the certificate's names.
    const port = await listen(server, '127.0.0.2');
    await expect(run(probeTrusting(authority.cert), `https://127.0.0.2:${port}/`)).resolves.toMatchObject({
      success: false,
      message: 'certificate is not valid for 127.0.0.2',
    });
  });
});

describe('HttpProbe.validate', () => {
  const probe = new HttpProbe();
  const ok = 'https://example.com/health';

  it('accepts a plain URL and a full set of options', () => {
    expect(probe.validate(ok, {})).toBeNull();
    expect(
      probe.validate(ok, {
        method: 'POST',
        headers: { Authorization: 'Bearer x', 'X-A': '' },
        body: '{}',
        expected_status: '200-299,301',
        keyword: 'ok',
        invert_keyword: false,
        follow_redirects: true,
        insecure_skip_verify: false,
        cert_warn_days: 14,
        timeout: 10,
      }),
    ).toBeNull();
  });

  it.each([
    ['ftp://example.com/', {}, 'target must be an http or https URL'],
    ['example.com', {}, 'target must be an http or https URL'],
    [ok, { method: 'FETCH' }, 'options.method must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'],
    [ok, { headers: ['a'] }, 'options.headers must be an object of header names to string values'],
    [ok, { headers: { 'X-A': 1 } }, 'options.headers.X-A must be a string without line breaks'],
    [ok, { headers: { 'X-A': 'a\r\nb' } }, 'options.headers.X-A must be a string without line breaks'],
    [ok, { headers: { 'bad name': 'x' } }, 'options.headers has an invalid header name "bad name"'],
    [ok, { body: 5, method: 'POST' }, 'options.body must be a string'],
    [ok, { body: 'x' }, 'options.body needs options.method other than GET or HEAD'],
    [
      ok,
      { expected_status: '2xx' },
      'options.expected_status must look like "200-299,301" (codes 100 to 599)',
    ],
    [
      ok,
      { expected_status: '299-200' },
      'options.expected_status must look like "200-299,301" (codes 100 to 599)',
    ],
    [ok, { expected_status: 200 }, 'options.expected_status must look like "200-299,301" (codes 100 to 599)'],
    [ok, { keyword: 3 }, 'options.keyword must be a string'],
    [ok, { invert_keyword: 'true' }, 'options.invert_keyword must be true or false'],
    [ok, { follow_redirects: 1 }, 'options.follow_redirects must be true or false'],
    [ok, { insecure_skip_verify: 'yes' }, 'options.insecure_skip_verify must be true or false'],
    [ok, { cert_warn_days: -1 }, 'options.cert_warn_days must be a whole number from 0 to 3650'],
    [ok, { cert_warn_days: 1.5 }, 'options.cert_warn_days must be a whole number from 0 to 3650'],
    [ok, { timeout: 0 }, 'options.timeout must be a whole number from 1 to 86400'],
    [ok, { timeout: '10' }, 'options.timeout must be a whole number from 1 to 86400'],
    [ok, { expected_code: '200' }, 'options.expected_code is not an option of http sensors'],
  ])('rejects %s %j', (target, options, message) => {
    expect(probe.validate(target, options)).toBe(message);
  });

  it('parses status specs', () => {
    expect(parseExpectedStatus('200-299,301')).toEqual([
      [200, 299],
      [301, 301],
    ]);
    expect(parseExpectedStatus('')).toBeNull();
    expect(parseExpectedStatus('600')).toBeNull();
  });
});
