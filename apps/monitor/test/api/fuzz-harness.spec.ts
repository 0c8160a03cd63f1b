import * as dgram from 'node:dgram';
import * as dns from 'node:dns';
import * as net from 'node:net';
import * as vm from 'node:vm';
import { CheckContext, compactLiteral, Exchange, violationsOf } from './support/fuzz-checks';
import { nested } from './support/fuzz-inputs';
import { raiseNetworkFence } from './support/fuzz-network-fence';
import type { Caller } from './support/fuzz-world';

/** The fuzzer's rules must be able to fail: each is shown one answer that breaks it. */
describe('the fuzzer rules', () => {
  const admin: Caller = { name: 'admin', headers: {}, rank: 3 };
  const viewer: Caller = { name: 'viewer', headers: {}, rank: 1 };
  const foreign: Caller = { name: 'cross-origin-admin', headers: {}, rank: 3, foreignOrigin: true };
  const context: CheckContext = {
    required: 3,
    allowed5xx: [],
    bodyFields: new Set(['name']),
    apiKeys: ['mk_current_key'],
    plantedSecrets: ['canaryCommunityQz'],
  };
  const exchange = (over: Partial<Exchange>): Exchange => ({
    operation: 'POST /api/sensors',
    method: 'POST',
    path: '/api/sensors',
    caller: admin,
    body: { kind: 'json', value: { name: 'ok' } },
    payload: '{"name":"ok"}',
    contentType: 'application/json',
    status: 201,
    responseType: 'application/json; charset=utf-8',
    responseText: '{"id":1}',
    attachment: false,
    outbound: [],
    pathParams: {},
    ...over,
  });
  const rules = (over: Partial<Exchange>, ctx: Partial<CheckContext> = {}) =>
    violationsOf(exchange(over), { ...context, ...ctx }).map((v) => v.rule);

  it('accept a plain success and a plain {error}', () => {
    expect(rules({})).toEqual([]);
    expect(rules({ status: 400, responseText: '{"error":"name is required"}' })).toEqual([]);
  });

  it('refuse a 500, and a 5xx the document does not list', () => {
    expect(rules({ status: 500, responseText: '{"error":"internal"}' })).toEqual(['no-server-error']);
    expect(rules({ status: 503, responseText: '{"error":"x"}' }, { allowed5xx: [503] })).toEqual([]);
    expect(rules({ status: 503, responseText: '{"error":"x"}' })).toEqual(['no-server-error']);
  });

  it('refuse an error that is not exactly {error: string}', () => {
    const framework = '{"error":"Bad Request","code":"FST_ERR_BAD_URL","message":"x","statusCode":400}';
    expect(rules({ status: 400, responseText: framework })).toEqual(['error-is-{error}']);
    expect(rules({ status: 404, responseText: '{"error":42}' })).toEqual(['error-is-{error}']);
    expect(rules({ status: 431, responseText: '', responseType: '' })).toEqual(['error-is-{error}']);
  });

  it('refuse a success without the right, and a cookie write from a foreign origin', () => {
    expect(rules({ caller: viewer })).toEqual(['no-success-without-rights']);
    expect(rules({ caller: foreign })).toEqual(['no-success-without-rights']);
    expect(rules({ caller: foreign, method: 'GET', operation: 'GET /api/sensors' })).toEqual([]);
  });

  it('refuse planted secrets, API keys outside the settings of an administrator, and hashes', () => {
    expect(rules({ responseText: '{"community":"canaryCommunityQz"}' })).toEqual(['no-secret-in-answer']);
    expect(rules({ responseText: '{"k":"mk_current_key"}' })).toEqual(['no-secret-in-answer']);
    const settings = {
      operation: 'GET /api/settings',
      method: 'GET',
      responseText: '{"api_key":"mk_current_key"}',
    };
    expect(rules(settings)).toEqual([]);
    expect(rules({ ...settings, caller: viewer }, { required: 1 })).toEqual(['no-secret-in-answer']);
    expect(rules({ responseText: `{"h":"$2b$12$${'a'.repeat(53)}"}` })).toEqual(['no-secret-in-answer']);
  });

  it('let an administrator download the secrets in a backup attachment only', () => {
    const backup = {
      operation: 'GET /api/backup',
      method: 'GET',
      responseText: '{"api_key":"mk_current_key"}',
    };
    expect(rules({ ...backup, attachment: true })).toEqual([]);
    expect(rules(backup)).toEqual(['no-secret-in-answer']);
  });

  it('refuse a success for text that is not valid Unicode in a field of the body', () => {
    expect(rules({ body: { kind: 'json', value: { name: 'a\ud800' } } })).toEqual([
      'invalid-unicode-refused',
    ]);
    expect(rules({ body: { kind: 'json', value: { id: 'a\ud800' } } })).toEqual([]); // read-only, ignored
    expect(
      rules({
        status: 400,
        responseText: '{"error":"x"}',
        body: { kind: 'json', value: { name: '\ud800' } },
      }),
    ).toEqual([]);
  });

  it('refuse a success for a path id that is not written in decimal digits', () => {
    const get = { operation: 'GET /api/sensors/{id}', method: 'GET' };
    expect(rules({ ...get, pathParams: { id: '16' } })).toEqual([]);
    expect(rules({ ...get, pathParams: { id: '0x10' } })).toEqual(['ids-are-decimal']);
    expect(rules({ ...get, pathParams: { id: '0x10' }, status: 400, responseText: '{"error":"x"}' })).toEqual(
      [],
    );
  });

  it('refuse outbound traffic and a missing answer', () => {
    expect(rules({ outbound: ['TCP connect to 192.0.2.1'] })).toEqual(['no-outbound-traffic']);
    expect(rules({ transportError: 'fetch failed: other side closed' })).toEqual(['answer-arrives']);
  });

  it('tag the request features the known-defect list names', () => {
    const deep = violationsOf(
      exchange({
        status: 500,
        responseText: '{"error":"x"}',
        body: { kind: 'json', value: { name: nested(500, 'array') } },
      }),
      context,
    );
    expect(deep[0].tags).toContain('deep-nesting');
    const badPath = violationsOf(
      exchange({ path: '/api/sensors/%ff', status: 500, responseText: '{"error":"x"}' }),
      context,
    );
    expect(badPath[0].tags).toContain('bad-percent-encoding');
  });
});

describe('a reproduction', () => {
  it('folds long runs into an expression that rebuilds the exact text', () => {
    for (const text of [
      JSON.stringify({ name: nested(2000, 'object') }),
      `{"name":"${'x'.repeat(100_000)}é"}`,
      'short',
      '',
    ]) {
      const expression = compactLiteral(text);
      expect(expression.length).toBeLessThan(200);
      expect(vm.runInNewContext(expression)).toBe(text);
    }
  });
});

describe('the network fence', () => {
  // 0.0.0.0 is not the loopback address the fence allows, yet reaching it never leaves the host:
  // a broken fence fails these tests without sending anything anywhere.
  it('refuses TCP, UDP and lookups to anything but 127.0.0.1 and lets loopback through', async () => {
    const server = net.createServer((socket) => socket.end('hi'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const fence = raiseNetworkFence();
    try {
      const refused = await new Promise<Error>((resolve) => {
        const socket = net.connect(port, '0.0.0.0');
        socket.on('error', resolve);
        socket.on('connect', () => resolve(new Error('connected')));
      });
      expect(refused.message).toMatch(/network fence/);
      await expect(dns.promises.lookup('0.0.0.0')).rejects.toThrow(/network fence/);
      const udp = dgram.createSocket('udp4');
      const sent = await new Promise<Error | null>((resolve) => udp.send('x', 9, '0.0.0.0', resolve));
      udp.close();
      expect(sent?.message).toMatch(/network fence/);
      const greeting = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('data', (data) => resolve(data.toString()));
        socket.on('error', reject);
      });
      expect(greeting).toBe('hi');
      expect(fence.attempts).toEqual(['TCP connect to 0.0.0.0', 'lookup of 0.0.0.0', 'UDP send to 0.0.0.0']);
    } finally {
      fence.lower();
      server.close();
    }
  });
});
