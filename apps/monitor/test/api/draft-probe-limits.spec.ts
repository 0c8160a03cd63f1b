import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDnsServer, type DnsTestServer } from '../../../../libs/probes/src/testing/dns-server';
import { accountWithRole, apiKeyHeaders, call, type Headers, setupAdmin } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(60_000);

const SECRET = 'wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY';
const TXT = 'v=spf1 include:internal-record-only';

type Answer = {
  ok?: boolean;
  result?: { success: boolean; message: string; status_code: number | null };
  error?: string;
};

/**
 * POST /api/sensors/validate with probe:true below administrator: no request shaping, no checks
 * of the peer's answer, no link-local or metadata address, and nothing the peer sent in the answer.
 */
describe('draft probes below administrator', () => {
  let t: TestApp;
  let admin: Headers;
  let operator: Headers;
  let apiKey: Headers;
  let server: http.Server;
  let base = '';
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders }[] = [];
  let dns: DnsTestServer;

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false });
    admin = await setupAdmin(t);
    operator = (await accountWithRole(t, admin, 'otto', 'operator')).headers;
    apiKey = await apiKeyHeaders(t, admin);
    server = http.createServer((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/to') res.writeHead(302, { location: url.searchParams.get('l') ?? '/' }).end();
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ SecretAccessKey: SECRET }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dns = await startDnsServer({
      records: [{ name: 'inside.test', type: 'TXT', ttl: 60, data: TXT } as never],
    });
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await dns.close();
    await t.close();
  });

  beforeEach(() => {
    seen.length = 0;
  });

  const validate = (draft: Record<string, unknown>, who: Headers, probe = true) =>
    call<Answer>(t, 'POST', '/api/sensors/validate', { name: 'draft', ...draft, probe }, who);

  it.each<[string, Record<string, unknown>, string]>([
    ['a POST', { type: 'http', options: { method: 'POST' } }, 'options.method POST'],
    ['a DELETE', { type: 'http', options: { method: 'delete' } }, 'options.method DELETE'],
    [
      'custom headers',
      { type: 'http', options: { headers: { 'X-aws-ec2-metadata-token': 't' } } },
      'options.headers',
    ],
    ['a body', { type: 'http', options: { method: 'GET', body: '', keyword: 'Secret' } }, 'options.keyword'],
    ['a keyword', { type: 'http', options: { keyword: 'wJalr' } }, 'options.keyword'],
    [
      'a JSON check',
      { type: 'http', options: { json_path: '$.SecretAccessKey', json_operator: '==', json_expected: 'x' } },
      'options.json_path',
    ],
    [
      'basic auth',
      { type: 'http', options: { basic_auth_user: 'u', basic_auth_password: 'p' } },
      'options.basic_auth_user',
    ],
  ])('an http draft with %s is a 403 and sends nothing', async (_what, draft, names) => {
    const res = await validate({ target: `${base}/`, ...draft }, operator);
    expect(res.status).toBe(403);
    expect(res.body.error).toContain(names);
    expect(res.body.error).toContain('only for administrators');
    expect(seen).toHaveLength(0);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a docker socket path',
      { type: 'docker', target: 'web', options: { socket: '/etc/passwd' } },
      'options.socket',
    ],
    [
      'a dns expected record',
      { type: 'dns', target: 'inside.test', options: { server: '127.0.0.1:53', expected: 'spf' } },
      'options.expected',
    ],
    [
      'an snmp range',
      { type: 'snmp', target: '127.0.0.1', options: { oid: '1.3.6.1.2.1.1.3.0', min: 1 } },
      'options.min',
    ],
  ])('a draft with %s is a 403', async (_what, draft, names) => {
    const res = await validate(draft, operator);
    expect(res.status).toBe(403);
    expect(res.body.error).toContain(names);
    expect(dns.queries).toHaveLength(0);
  });

  it('without probe the same drafts are only checked: 200 {ok:true}', async () => {
    const res = await validate(
      { type: 'http', target: `${base}/`, options: { method: 'POST', headers: { a: 'b' }, keyword: 'k' } },
      operator,
      false,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(
      (await validate({ type: 'http', target: 'http://169.254.169.254/' }, operator, false)).status,
    ).toBe(200);
  });

  it('a plain GET answers success, status code and latency, never the body', async () => {
    const res = await validate({ type: 'http', target: `${base}/`, options: { method: 'HEAD' } }, operator);
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ success: true, status_code: 200, message: 'HTTP 200' });
    expect(seen.map((s) => s.method)).toEqual(['HEAD']);
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
  });

  it.each<[string, Record<string, unknown>]>([
    ['an http link-local literal', { type: 'http', target: 'http://169.254.169.254/latest/meta-data/' }],
    ['an http IPv6 link-local literal', { type: 'http', target: 'http://[fe80::1]:8080/' }],
    ['the AWS IPv6 metadata address', { type: 'http', target: 'http://[fd00:ec2::254]/' }],
    ['an IPv4-mapped metadata address', { type: 'http', target: 'http://[::ffff:169.254.169.254]/' }],
    ['a metadata host name', { type: 'http', target: 'http://metadata.google.internal/computeMetadata/v1/' }],
    ['a tcp target', { type: 'tcp', target: '169.254.169.254:80' }],
    ['a ping target', { type: 'ping', target: '169.254.10.1' }],
    ['a dns server', { type: 'dns', target: 'example.com', options: { server: '169.254.169.253' } }],
    ['an snmp agent', { type: 'snmp', target: 'fe80::1', options: { oid: '1.3.6.1.2.1.1.3.0' } }],
  ])('%s is a 400', async (_what, draft) => {
    const res = await validate(draft, operator);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('address not allowed (link-local or cloud metadata)');
    expect(res.body.error).toContain('only administrators may probe it');
  });

  it('a redirect to a link-local address is not followed', async () => {
    const target = `${base}/to?l=${encodeURIComponent('http://169.254.169.254/latest/meta-data/iam/')}`;
    const res = await validate({ type: 'http', target }, operator);
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      success: false,
      message: 'address not allowed (link-local or cloud metadata)',
    });
    expect(seen).toHaveLength(1);
  });

  it('a dns draft answers "check passed", never the records', async () => {
    const draft = {
      type: 'dns',
      target: 'inside.test',
      options: { server: dns.address, record_type: 'TXT' },
    };
    const below = await validate(draft, operator);
    expect(below.body.result).toEqual(expect.objectContaining({ success: true, message: 'check passed' }));
    const above = await validate(draft, admin);
    expect(above.body.result?.message).toContain('include:internal-record-only');
  });

  it('a refused connection keeps its fixed wording', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const res = await validate({ type: 'tcp', target: `127.0.0.1:${port}` }, operator);
    expect(res.body.result).toMatchObject({ success: false, message: 'connection refused' });
  });

  it.each([
    ['an administrator', () => admin],
    ['the API key', () => apiKey],
  ])('%s keeps everything: method, headers, body checks and their findings', async (_who, headers) => {
    const res = await validate(
      {
        type: 'http',
        target: `${base}/`,
        options: {
          method: 'POST',
          headers: { 'X-Probe': 'yes' },
          body: '{}',
          json_path: '$.SecretAccessKey',
          json_operator: '==',
          json_expected: 'nope',
        },
      },
      headers(),
    );
    expect(res.status).toBe(200);
    expect(res.body.result?.message).toContain(SECRET);
    expect(seen[0]).toMatchObject({ method: 'POST', headers: expect.objectContaining({ 'x-probe': 'yes' }) });
    const socket = await validate(
      { type: 'docker', target: 'web', options: { socket: '/nonexistent.sock' } },
      headers(),
    );
    expect(socket.status).toBe(200);
  });
});
