import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  addonCandidates,
  ICMP_ADDON_ENV,
  ICMP_ADDON_RELATIVE_PATH,
  icmpAddon,
  loadIcmpAddon,
  type IcmpAddon,
  type IcmpHandle,
} from './icmp-addon';
import { echoRequest, parseEchoReply } from './icmp-packet';
import { openIcmpSocket, ping, PING_GROUP_RANGE_PATH, pingGroupRangeNote, type PingReport } from './ping';
import { describePing, formatMs, PingProbe, pingProbe } from './ping.probe';

/**
 * In-process tests against 127.0.0.1 and ::1 only. The socket tests need root (raw sockets, and
 * writing net.ipv4.ping_group_range, which they restore); without root they fail, never skip.
 */
const REPO_ROOT = resolve(__dirname, '../../../..');
const request = (target: string, options: Record<string, unknown> = {}, timeoutMs = 2000) => ({
  target,
  options,
  timeoutMs,
  signal: new AbortController().signal,
});

function requireRoot(): void {
  if (process.getuid?.() !== 0) {
    throw new Error(
      'this test needs root: it opens raw ICMP sockets and writes net.ipv4.ping_group_range (run jest as root)',
    );
  }
}

function loadedAddon(): IcmpAddon {
  const addon = icmpAddon();
  if (typeof addon === 'string') throw new Error(`the ICMP addon must be built for this test: ${addon}`);
  return addon;
}

function report(overrides: Partial<PingReport> = {}): PingReport {
  return {
    ok: true,
    kind: 'raw',
    address: '127.0.0.1',
    count: 1,
    sent: 1,
    rtts: [],
    from: null,
    sendError: null,
    aborted: false,
    ...overrides,
  };
}

describe('PingProbe.validate', () => {
  const validate = (target: string, options: Record<string, unknown> = {}) =>
    pingProbe.validate(target, options);

  it('accepts host names and IPv4 and IPv6 addresses', () => {
    for (const target of [
      '127.0.0.1',
      '::1',
      '[::1]',
      'fe80::1%eth0',
      'localhost',
      'db-1.example.org',
      'host.',
    ]) {
      expect(validate(target)).toBeNull();
    }
  });

  it('rejects an empty or malformed target, naming the field', () => {
    for (const target of ['', '  ', 'http://example.org', 'a b', '-lead.example', 'x'.repeat(64) + '.org']) {
      expect(validate(target)).toBe('target must be a host name or an IP address');
    }
  });

  it('accepts count 1..10 and rejects anything else', () => {
    expect(validate('127.0.0.1', { count: 1 })).toBeNull();
    expect(validate('127.0.0.1', { count: 10 })).toBeNull();
    for (const count of [0, 11, 2.5, '4', null, -1]) {
      expect(validate('127.0.0.1', { count })).toBe('options.count must be an integer from 1 to 10');
    }
  });

  it('has the type ping and no secret options', () => {
    expect(pingProbe.type).toBe('ping');
    expect(pingProbe.secretOptions).toEqual([]);
  });
});

describe('describePing', () => {
  it('reports one reply with its round trip', () => {
    expect(describePing(report({ rtts: [0.43], from: '127.0.0.1' }), 10_000)).toEqual({
      success: true,
      message: 'reply from 127.0.0.1 in 0.4 ms',
      latencyMs: 0.43,
    });
  });

  it('is up when any reply arrives and shows the loss', () => {
    expect(
      describePing(report({ count: 4, sent: 4, rtts: [0.4, 0.6, 0.5, 0.5], from: '::1' }), 10_000),
    ).toEqual({
      success: true,
      message: '4/4 replies from ::1, avg 0.5 ms',
      latencyMs: 0.5,
    });
    expect(describePing(report({ count: 4, sent: 4, rtts: [12.25] }), 10_000).message).toBe(
      '1/4 replies from 127.0.0.1, avg 12.3 ms',
    );
  });

  it('is down without a reply, naming the time-out', () => {
    expect(describePing(report(), 10_000)).toEqual({
      success: false,
      message: 'no reply from 127.0.0.1 within 10 s',
      latencyMs: null,
    });
    expect(describePing(report({ count: 3, sent: 3 }), 2500).message).toBe(
      'no reply from 127.0.0.1 within 2.5 s (3 requests)',
    );
  });

  it('names send errors, aborts and open failures', () => {
    expect(describePing(report({ sendError: 'network is unreachable', sent: 0 }), 1000).message).toBe(
      'cannot ping 127.0.0.1: network is unreachable',
    );
    expect(describePing(report({ aborted: true }), 1000).message).toBe('probe cancelled');
    expect(describePing({ ok: false, message: 'cannot ping: x' }, 1000)).toEqual({
      success: false,
      message: 'cannot ping: x',
      latencyMs: null,
    });
  });

  it('formats round trips from microseconds to seconds', () => {
    expect([0.0437, 0.1, 0.44, 9.96, 99.94, 153.4, 1520].map(formatMs)).toEqual([
      '0.04',
      '0.1',
      '0.4',
      '10.0',
      '99.9',
      '153',
      '1520',
    ]);
  });
});

describe('socket opening and its failure message', () => {
  function failingAddon(dgram: { code: string; message: string }, raw: { code: string; message: string }) {
    const fail = (error: { code: string; message: string }) => Object.assign(new Error(error.message), error);
    return {
      open: (kind: string) => {
        throw fail(kind === 'dgram' ? dgram : raw);
      },
    } as unknown as IcmpAddon;
  }

  it('names both sockets and why each failed', () => {
    const addon = failingAddon(
      { code: 'EPROTONOSUPPORT', message: 'protocol not supported' },
      { code: 'EPERM', message: 'operation not permitted' },
    );
    expect(openIcmpSocket(addon, 4, () => undefined)).toEqual({
      ok: false,
      message:
        'cannot ping: datagram ICMP socket: protocol not supported; ' +
        'raw ICMP socket: operation not permitted (needs root or CAP_NET_RAW)',
    });
  });

  it('blames net.ipv4.ping_group_range for a refused datagram socket when the range excludes us', () => {
    const gid = process.getegid?.() ?? 0;
    expect(pingGroupRangeNote('1\t0\n')).toBe(`net.ipv4.ping_group_range excludes gid ${gid}`);
    expect(pingGroupRangeNote(`${gid + 1} ${gid + 10}`)).toMatch(/excludes gid/);
    expect(pingGroupRangeNote('0\t2147483647\n')).toBeNull();
    expect(pingGroupRangeNote(`${gid} ${gid}`)).toBeNull();
    expect(pingGroupRangeNote('garbage')).toBeNull();
    expect(pingGroupRangeNote(null)).toBeNull();
  });

  it('says when the addon cannot be loaded', async () => {
    const missing = join(REPO_ROOT, 'native/icmp/build/Release/missing.node');
    const reason = loadIcmpAddon({ [ICMP_ADDON_ENV]: missing });
    expect(reason).toMatch(/^ICMP addon .*missing\.node failed to load: /);
    expect(loadIcmpAddon({}, ['/nonexistent/icmp.node'])).toBe(
      'ICMP addon not built: native/icmp/build/Release/icmp.node not found; run npm run install:native',
    );
    const probe = new PingProbe(() => reason);
    await expect(probe.run(request('127.0.0.1'))).resolves.toEqual({
      success: false,
      message: `cannot ping: ${reason as string}`,
      latencyMs: null,
    });
  });

  it('finds the addon from the sources and from the bundle in dist/apps/monitor', () => {
    const built = join(REPO_ROOT, ICMP_ADDON_RELATIVE_PATH);
    expect(addonCandidates('/', __dirname)).toContain(built);
    expect(addonCandidates('/', join(REPO_ROOT, 'dist/apps/monitor'))).toContain(built);
    expect(addonCandidates(REPO_ROOT, '/')[0]).toBe(built);
    expect(typeof loadIcmpAddon({}, [built])).toBe('object');
  });
});

describe('ping over real sockets (root)', () => {
  let originalRange: string | null = null;
  const setRange = (range: string) => writeFileSync(PING_GROUP_RANGE_PATH, `${range}\n`);

  beforeAll(() => {
    requireRoot();
    originalRange = readFileSync(PING_GROUP_RANGE_PATH, 'utf8').trim();
  });

  afterAll(() => {
    if (originalRange !== null) setRange(originalRange);
  });

  describe('raw path: ping_group_range "1 0" refuses the datagram socket', () => {
    beforeAll(() => setRange('1 0'));

    it.each([
      ['127.0.0.1', 4],
      ['::1', 6],
    ] as const)('falls back to a raw socket and pings %s', async (address, family) => {
      const result = await ping({ address, family, count: 1, timeoutMs: 2000 });
      expect(result).toMatchObject({ ok: true, kind: 'raw', sent: 1, from: address, sendError: null });
      expect((result as PingReport).rtts).toHaveLength(1);

      const outcome = await pingProbe.run(request(address));
      expect(outcome.success).toBe(true);
      expect(outcome.message).toMatch(
        new RegExp(`^reply from ${address.replace(/\./g, '\\.')} in [0-9.]+ ms$`),
      );
      expect(outcome.latencyMs).toBeGreaterThan(0);
      expect(outcome.latencyMs).toBeLessThan(1000);
    });

    it('sends count requests and counts the replies', async () => {
      const started = Date.now();
      const outcome = await pingProbe.run(request('127.0.0.1', { count: 3 }, 600));
      expect(outcome).toMatchObject({
        success: true,
        message: expect.stringMatching(/^3\/3 replies from 127\.0\.0\.1, avg [0-9.]+ ms$/),
      });
      // Spacing min(1 s, 600 ms / (2 * 3)) = 100 ms; done as soon as the third reply is in.
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(Date.now() - started).toBeLessThan(600);
    });

    it('resolves localhost through the system resolver and accepts [::1]', async () => {
      expect((await pingProbe.run(request('localhost'))).message).toMatch(
        /^reply from (127\.0\.0\.1|::1) in /,
      );
      expect((await pingProbe.run(request('[::1]'))).message).toMatch(/^reply from ::1 in /);
    });

    it('keeps 300 concurrent runs apart (identifier, sequence and payload)', async () => {
      const runs = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          ping({
            address: i % 2 ? '::1' : '127.0.0.1',
            family: i % 2 ? 6 : 4,
            count: 2,
            timeoutMs: 5000,
            intervalMs: 5,
          }),
        ),
      );
      for (const run of runs)
        expect(run).toMatchObject({
          ok: true,
          kind: 'raw',
          sent: 2,
          rtts: [expect.any(Number), expect.any(Number)],
        });
    });

    it('stops at once when aborted, closing its socket', async () => {
      const controller = new AbortController();
      controller.abort();
      expect(await pingProbe.run({ ...request('127.0.0.1'), signal: controller.signal })).toEqual({
        success: false,
        message: 'probe cancelled',
        latencyMs: null,
      });
    });
  });

  describe('datagram path: ping_group_range admits gid 0', () => {
    beforeAll(() => setRange('0 2147483647'));

    it.each([
      ['127.0.0.1', 4],
      ['::1', 6],
    ] as const)('uses the unprivileged datagram socket for %s', async (address, family) => {
      const result = await ping({ address, family, count: 2, timeoutMs: 2000, intervalMs: 10 });
      expect(result).toMatchObject({ ok: true, kind: 'dgram', sent: 2, from: address });
      expect((result as PingReport).rtts).toHaveLength(2);
      expect((await pingProbe.run(request(address))).success).toBe(true);
    });

    it('keeps 300 concurrent datagram runs apart', async () => {
      const runs = await Promise.all(
        Array.from({ length: 300 }, () =>
          ping({ address: '127.0.0.1', family: 4, count: 2, timeoutMs: 5000, intervalMs: 5 }),
        ),
      );
      for (const run of runs)
        expect(run).toMatchObject({
          ok: true,
          kind: 'dgram',
          rtts: [expect.any(Number), expect.any(Number)],
        });
    });
  });

  describe('the addon', () => {
    it('filters a raw socket down to echo replies carrying its identifier', async () => {
      const addon = loadedAddon();
      const seen: Record<string, number[]> = { a: [], b: [] };
      const open = (name: 'a' | 'b', family: 4 | 6) => {
        const handle: IcmpHandle = addon.open('raw', family, (error, data) => {
          const reply = data && parseEchoReply(family, data, family === 4);
          seen[name].push(reply ? reply.id : -1);
        });
        return handle;
      };
      for (const [family, address] of [
        [4, '127.0.0.1'],
        [6, '::1'],
      ] as const) {
        seen.a = [];
        seen.b = [];
        const a = open('a', family);
        const b = open('b', family);
        expect(addon.filterEchoReplies(a, 0x1111)).toBe(true);
        expect(addon.filterEchoReplies(b, 0x2222)).toBe(true);
        addon.send(a, echoRequest(family, 0x1111, 1, Buffer.from('a')), address);
        addon.send(a, echoRequest(family, 0x1111, 2, Buffer.from('a')), address);
        await new Promise((settle) => setTimeout(settle, 100));
        addon.close(a);
        addon.close(b);
        // Without the filter both would also see the looped-back requests and each other's replies.
        expect(seen).toEqual({ a: [0x1111, 0x1111], b: [] });
      }
    });

    it('throws errno-coded errors and treats a closed handle as closed', () => {
      const addon = loadedAddon();
      const handle = addon.open('raw', 4, () => undefined);
      expect(handle.fd).toBeGreaterThan(2);
      expect(addon.send(handle, echoRequest(4, 1, 1, Buffer.alloc(0)), '127.0.0.1')).toBe(8);
      expect(() => addon.send(handle, Buffer.alloc(8), 'not-an-address')).toThrow(
        expect.objectContaining({ code: 'EINVAL' }),
      );
      addon.close(handle);
      addon.close(handle);
      expect(() => addon.send(handle, Buffer.alloc(8), '127.0.0.1')).toThrow(
        expect.objectContaining({ code: 'EBADF' }),
      );
      expect(() => addon.open('stream' as 'raw', 4, () => undefined)).toThrow(/kind must be/);
      expect(() => addon.open('raw', 5 as 4, () => undefined)).toThrow(/family must be/);
    });

    it('reports the raw-socket capability of this (root) process', () => {
      expect(loadedAddon().hasRawSocketCapability()).toBe(true);
    });
  });
});
