import * as http from 'node:http';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const ACCOUNT = { username: 'admin', password: 'correct horse battery', mode: 'simple' };

interface Answer {
  status: number;
  body: Record<string, unknown>;
  cookie: string | undefined;
}

/** A request to the app on 127.0.0.1 that names `host` (fetch will not send another Host). */
function request(
  t: TestApp,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const { port } = new URL(t.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
            cookie: res.headers['set-cookie']?.[0],
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const setup = (t: TestApp, host: string, extra: Record<string, string> = {}) =>
  request(t, 'POST', '/api/setup', { host, ...extra }, ACCOUNT);
const session = (t: TestApp, host: string) => request(t, 'GET', '/api/session', { host });

describe('first-run setup and the Host a request names (DNS rebinding)', () => {
  const apps: TestApp[] = [];
  const start = async (options: Parameters<typeof startTestApp>[0] = {}) => {
    const t = await startTestApp({ startScheduler: false, ...options });
    apps.push(t);
    return t;
  };
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
  });

  it.each([
    ['an IPv4 address with a port', '127.0.0.1:8080'],
    ['an IPv4 address without one', '192.0.2.10'],
    ['an IPv6 address in brackets', '[::1]:8080'],
    ['localhost', 'localhost:8080'],
    ['LOCALHOST in capitals', 'LOCALHOST'],
  ])('is done from %s', async (_label, host) => {
    const t = await start();
    expect((await session(t, host)).body).toMatchObject({ setup_needed: true, setup_host_allowed: true });
    const done = await setup(t, host);
    expect(done.status).toBe(200);
    expect(done.cookie).toMatch(/^monitor_session=./);
  });

  it('is refused with 403 from any other name, says how to go on, and creates nothing', async () => {
    const t = await start();
    expect((await session(t, 'monitor.test:8080')).body).toMatchObject({
      setup_needed: true,
      setup_host_allowed: false,
    });
    for (const host of ['monitor.test:8080', 'rebind.example.com', '127.0.0.1.nip.io', 'sub.localhost']) {
      const refused = await setup(t, host);
      expect(refused.status).toBe(403);
      expect(refused.cookie).toBeUndefined();
      expect(Object.keys(refused.body)).toEqual(['error']);
      expect(refused.body.error).toMatch(/localhost or an IP address/);
      expect(refused.body.error).toMatch(/allowed_hosts/);
    }
    expect((await session(t, '127.0.0.1')).body).toMatchObject({ setup_needed: true });
    // An X-Forwarded-Host that is not allowed refuses too, whoever sent it.
    const forwarded = await setup(t, '127.0.0.1', { 'x-forwarded-host': 'monitor.test' });
    expect(forwarded.status).toBe(403);
    expect((await setup(t, '127.0.0.1')).status).toBe(200);
    // Once an account exists the answer is the usual 409, from any host.
    expect((await setup(t, 'monitor.test')).status).toBe(409);
    expect((await setup(t, '127.0.0.1')).status).toBe(409);
  });

  it('is done from the host of base_url', async () => {
    const t = await start({ env: { MONITOR_BASE_URL: 'https://Status.Example.com:8443/monitor' } });
    expect((await setup(t, 'monitor.test')).status).toBe(403);
    expect((await session(t, 'status.example.com')).body).toMatchObject({ setup_host_allowed: true });
    expect((await setup(t, 'status.example.com')).status).toBe(200);
  });

  it('is done from a name in allowed_hosts, from the file or MONITOR_ALLOWED_HOSTS', async () => {
    const fromFile = await start({ file: { allowed_hosts: ['nas.home.arpa'] } });
    expect((await setup(fromFile, 'other.home.arpa')).status).toBe(403);
    expect((await setup(fromFile, 'NAS.home.arpa:8080')).status).toBe(200);
    const fromEnv = await start({ env: { MONITOR_ALLOWED_HOSTS: 'a.test,monitor.test' } });
    expect((await session(fromEnv, 'monitor.test')).body).toMatchObject({ setup_host_allowed: true });
    expect((await setup(fromEnv, 'monitor.test:8080', { 'x-forwarded-host': 'a.test' })).status).toBe(200);
  });
});
