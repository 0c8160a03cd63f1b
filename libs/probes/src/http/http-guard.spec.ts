import * as http from 'node:http';
import { BLOCKED_ADDRESS_MESSAGE } from '../address-guard';
import { listen, stop } from '../testing/net';
import { HttpProbe, URL_CREDENTIALS_PROBLEM } from './http.probe';

/** Answers `/to?l=<url>` with a redirect there, anything else with 200; records what it saw. */
function redirector(seen: http.IncomingHttpHeaders[]): http.Server {
  return http.createServer((req, res) => {
    seen.push(req.headers);
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/to') res.writeHead(302, { location: url.searchParams.get('l') ?? '/' }).end();
    else res.writeHead(200).end('{"SecretAccessKey":"abc"}');
  });
}

describe('HttpProbe: guarded runs, basic auth and credentials in the target', () => {
  const probe = new HttpProbe();
  const seen: http.IncomingHttpHeaders[] = [];
  const server = redirector(seen);
  let base = '';
  const run = (target: string, options: Record<string, unknown> = {}, guarded = false) =>
    probe.run({ target, options, timeoutMs: 5000, signal: new AbortController().signal, guarded });

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

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://[::ffff:169.254.169.254]/',
    'http://metadata.google.internal/computeMetadata/v1/',
  ])('a guarded run is refused a redirect to %s', async (location) => {
    const outcome = await run(`${base}/to?l=${encodeURIComponent(location)}`, {}, true);
    expect(outcome).toMatchObject({ success: false, message: BLOCKED_ADDRESS_MESSAGE });
    expect(seen).toHaveLength(1);
  });

  it('a guarded run is refused a link-local target and still reaches loopback', async () => {
    expect(await run('http://169.254.169.254/', {}, true)).toMatchObject({
      message: BLOCKED_ADDRESS_MESSAGE,
    });
    expect(await run(`http://localhost:${new URL(base).port}/to?l=%2Fok`, {}, true)).toMatchObject({
      success: true,
      message: 'HTTP 200',
    });
    expect(seen).toHaveLength(2);
  });

  it('sends basic_auth_user and basic_auth_password as an Authorization: Basic header', async () => {
    await run(`${base}/`, { basic_auth_user: 'ops', basic_auth_password: 'pä:ss' });
    expect(seen[0].authorization).toBe(`Basic ${Buffer.from('ops:pä:ss').toString('base64')}`);
    await run(`${base}/`, { basic_auth_user: 'ops' });
    expect(seen[1].authorization).toBe(`Basic ${Buffer.from('ops:').toString('base64')}`);
    await run(`${base}/`);
    expect(seen[2].authorization).toBeUndefined();
  });

  it('refuses credentials inside the target and points to the basic auth options', () => {
    expect(probe.validate('https://user:pass@example.com/', {})).toBe(URL_CREDENTIALS_PROBLEM);
    expect(probe.validate('https://user@example.com/', {})).toBe(URL_CREDENTIALS_PROBLEM);
    expect(URL_CREDENTIALS_PROBLEM).toContain('options.basic_auth_user and options.basic_auth_password');
  });

  it.each<[Record<string, unknown>, string | null]>([
    [{ basic_auth_user: 'u', basic_auth_password: 'p' }, null],
    [
      { basic_auth_user: 'u:x' },
      'options.basic_auth_user must be a string of at most 255 characters without a colon',
    ],
    [{ basic_auth_password: 'p' }, 'options.basic_auth_password needs options.basic_auth_user'],
    [
      { basic_auth_user: 'u', basic_auth_password: 1 },
      'options.basic_auth_password must be a string of at most 1024 characters without line breaks',
    ],
    [
      { basic_auth_user: 'u', headers: { authorization: 'Bearer t' } },
      'options.basic_auth_user and an Authorization header cannot be used together',
    ],
  ])('validates basic auth %j', (options, problem) => {
    expect(probe.validate('https://example.com/', options)).toBe(problem);
  });

  it('declares header values, the body and the password secret', () => {
    expect(probe.secretOptions).toEqual(['headers', 'body', 'basic_auth_password']);
  });

  it.each<[Record<string, unknown>, string | null]>([
    [{}, null],
    [{ method: 'head', expected_status: '200', follow_redirects: false, timeout: 3 }, null],
    [{ method: 'POST' }, 'options.method POST is allowed in a draft probe only for administrators'],
    [{ headers: { 'X-A': 'b' } }, 'options.headers is allowed in a draft probe only for administrators'],
    [{ headers: {} }, null],
    [{ body: 'x' }, 'options.body is allowed in a draft probe only for administrators'],
    [{ keyword: 'Secret' }, 'options.keyword is allowed in a draft probe only for administrators'],
    [{ json_path: '$.a' }, 'options.json_path is allowed in a draft probe only for administrators'],
    [{ basic_auth_user: 'u' }, 'options.basic_auth_user is allowed in a draft probe only for administrators'],
  ])('below administrator, a draft with %j: %s', (options, problem) => {
    expect(probe.restrictedDraftProblem(options)).toBe(problem);
  });
});
