import * as dgram from 'node:dgram';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as dnsPacket from 'dns-packet';
import type { ProbeRequest } from '../probe';
import { RCODE, startDnsServer, type DnsTestServer } from '../testing/dns-server';
import { DnsProbe, firstNameserver, reverseName } from './dns.probe';

const RECORDS = [
  { name: 'web.test', type: 'A', data: '192.0.2.1' },
  { name: 'web.test', type: 'A', data: '192.0.2.2' },
  { name: 'web.test', type: 'AAAA', data: '2001:db8::1' },
  { name: 'web.test', type: 'TXT', data: ['v=spf1 ', '-all'] },
  { name: 'web.test', type: 'CAA', data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } },
  { name: 'alias.test', type: 'CNAME', data: 'web.test' },
  { name: 'mail.test', type: 'MX', data: { preference: 10, exchange: 'mx1.mail.test' } },
  { name: 'mail.test', type: 'MX', data: { preference: 20, exchange: 'mx2.mail.test' } },
  { name: 'test', type: 'NS', data: 'ns1.test' },
  {
    name: 'test',
    type: 'SOA',
    data: {
      mname: 'ns1.test',
      rname: 'hostmaster.test',
      serial: 2024010101,
      refresh: 3600,
      retry: 600,
      expire: 86400,
      minimum: 60,
    },
  },
  { name: '_sip._tcp.test', type: 'SRV', data: { priority: 1, weight: 5, port: 5060, target: 'sip.test' } },
  { name: '1.2.0.192.in-addr.arpa', type: 'PTR', data: 'web.test' },
  ...Array.from({ length: 12 }, (_, i) => ({ name: 'many.test', type: 'A', data: `198.51.100.${i + 1}` })),
] as const;

describe('DnsProbe', () => {
  const probe = new DnsProbe();
  let server: DnsTestServer;

  function run(target: string, options: ProbeRequest['options'] = {}, timeoutMs = 3000) {
    return probe.run({
      target,
      options: { server: server.address, ...options },
      timeoutMs,
      signal: new AbortController().signal,
    });
  }

  beforeAll(async () => {
    server = await startDnsServer({
      records: RECORDS as never,
      rcodes: { 'broken.test': RCODE.SERVFAIL, 'refused.test': RCODE.REFUSED },
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.queries.length = 0;
  });

  it('lists the A records it got, asking one recursive question over UDP', async () => {
    await expect(run('web.test')).resolves.toEqual({
      success: true,
      message: 'A 192.0.2.1, 192.0.2.2',
      latencyMs: expect.any(Number),
    });
    expect(server.queries).toEqual([
      { transport: 'udp', name: 'web.test', type: 'A', recursionDesired: true },
    ]);
  });

  it.each([
    ['web.test', 'AAAA', 'AAAA 2001:db8::1'],
    ['web.test', 'TXT', 'TXT "v=spf1 -all"'],
    ['web.test', 'CAA', 'CAA 0 issue "letsencrypt.org"'],
    ['mail.test', 'MX', 'MX 10 mx1.mail.test, 20 mx2.mail.test'],
    ['test', 'NS', 'NS ns1.test'],
    ['test', 'SOA', 'SOA ns1.test hostmaster.test 2024010101 3600 600 86400 60'],
    ['_sip._tcp.test', 'SRV', 'SRV 1 5 5060 sip.test'],
    ['alias.test', 'CNAME', 'CNAME web.test'],
    ['1.2.0.192.in-addr.arpa', 'PTR', 'PTR web.test'],
    ['192.0.2.1', 'ptr', 'PTR web.test'],
  ])('%s %s', async (target, recordType, message) => {
    await expect(run(target, { record_type: recordType })).resolves.toMatchObject({ success: true, message });
  });

  it('follows a CNAME to the records asked for', async () => {
    await expect(run('alias.test')).resolves.toMatchObject({
      success: true,
      message: 'A 192.0.2.1, 192.0.2.2',
    });
  });

  it('shortens a long answer', async () => {
    const outcome = await run('many.test');
    expect(outcome.message).toBe(
      `A ${Array.from({ length: 10 }, (_, i) => `198.51.100.${i + 1}`).join(', ')} (+2 more)`,
    );
  });

  it('checks that some record contains the expected text, ignoring case', async () => {
    await expect(run('web.test', { expected: '192.0.2.2' })).resolves.toMatchObject({ success: true });
    await expect(run('mail.test', { record_type: 'MX', expected: 'MX2.MAIL' })).resolves.toMatchObject({
      success: true,
    });
    await expect(run('web.test', { expected: '10.0.0.1' })).resolves.toEqual({
      success: false,
      message: 'expected "10.0.0.1" not in answer: A 192.0.2.1, 192.0.2.2',
      latencyMs: expect.any(Number),
    });
    // the expected text is searched among the many records, not only the ones shown
    await expect(run('many.test', { expected: '198.51.100.12' })).resolves.toMatchObject({ success: true });
  });

  it('reports NXDOMAIN, SERVFAIL and REFUSED', async () => {
    await expect(run('missing.test')).resolves.toEqual({
      success: false,
      message: 'NXDOMAIN',
      latencyMs: expect.any(Number),
    });
    await expect(run('broken.test')).resolves.toMatchObject({ success: false, message: 'SERVFAIL' });
    await expect(run('refused.test')).resolves.toMatchObject({ success: false, message: 'REFUSED' });
  });

  it('reports a name without records of the type', async () => {
    await expect(run('mail.test', { record_type: 'AAAA' })).resolves.toMatchObject({
      success: false,
      message: 'no AAAA records',
    });
  });

  it('queries over TCP when asked', async () => {
    await expect(run('web.test', { transport: 'tcp', record_type: 'aaaa' })).resolves.toMatchObject({
      success: true,
      message: 'AAAA 2001:db8::1',
    });
    await expect(run('missing.test', { transport: 'tcp' })).resolves.toMatchObject({ message: 'NXDOMAIN' });
    expect(server.queries.map((q) => q.transport)).toEqual(['tcp', 'tcp']);
  });

  it('falls back to defaults for options of the wrong type', async () => {
    await expect(
      run('web.test', { record_type: 5, transport: 'carrier-pigeon', expected: 7 }),
    ).resolves.toMatchObject({
      success: true,
      message: 'A 192.0.2.1, 192.0.2.2',
    });
    expect(server.queries[0]).toMatchObject({ transport: 'udp', type: 'A' });
  });

  it('retries over TCP when the UDP answer is truncated', async () => {
    const truncating = await startDnsServer({ records: RECORDS as never, truncateUdp: true });
    try {
      await expect(run('web.test', { server: truncating.address })).resolves.toMatchObject({
        success: true,
        message: 'A 192.0.2.1, 192.0.2.2',
      });
      expect(truncating.queries.map((q) => q.transport)).toEqual(['udp', 'tcp']);
    } finally {
      await truncating.close();
    }
  });

  it.each(['udp', 'tcp'])('times out over %s against a server that never answers', async (transport) => {
    const silent = await startDnsServer({ records: [], silent: true });
    try {
      const started = Date.now();
      const outcome = await run('web.test', { server: silent.address, transport }, 1000);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(outcome).toEqual({ success: false, message: 'timed out after 1 s', latencyMs: null });
      expect(silent.queries).toHaveLength(1);
    } finally {
      await silent.close();
    }
  });

  it('reports a closed UDP port as refused', async () => {
    const socket = dgram.createSocket('udp4');
    socket.bind(0, '127.0.0.1');
    await once(socket, 'listening');
    const port = socket.address().port;
    await new Promise<void>((resolve) => socket.close(resolve));
    await expect(run('web.test', { server: `127.0.0.1:${port}` })).resolves.toMatchObject({
      success: false,
      message: 'connection refused',
    });
  });

  it('ignores an answer to someone else and waits for its own', async () => {
    // A forger that answers first with a wrong id, then the real server's answer goes through.
    const forger = dgram.createSocket('udp4');
    forger.bind(0, '127.0.0.1');
    await once(forger, 'listening');
    forger.on('message', (message, peer) => {
      const query = dnsPacket.decode(message);
      const answer = (id: number, data: string) =>
        dnsPacket.encode({
          type: 'response',
          id,
          questions: query.questions,
          answers: [{ type: 'A', name: 'web.test', data }],
        });
      forger.send(answer(((query.id ?? 0) + 1) % 65536, '10.6.6.6'), peer.port, peer.address);
      setTimeout(() => forger.send(answer(query.id ?? 0, '192.0.2.9'), peer.port, peer.address), 20);
    });
    try {
      await expect(run('web.test', { server: `127.0.0.1:${forger.address().port}` })).resolves.toMatchObject({
        success: true,
        message: 'A 192.0.2.9',
      });
    } finally {
      await new Promise<void>((resolve) => forger.close(resolve));
    }
  });

  it('uses the first nameserver of resolv.conf by default', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dns-probe-'));
    try {
      const empty = join(dir, 'empty.conf');
      await writeFile(empty, '# nothing here\nsearch example\n');
      const noServer = new DnsProbe({ resolvConfPath: empty });
      await expect(
        noServer.run({
          target: 'web.test',
          options: {},
          timeoutMs: 1000,
          signal: new AbortController().signal,
        }),
      ).resolves.toEqual({ success: false, message: 'no DNS server: set options.server', latencyMs: null });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(firstNameserver('search x\nnameserver 10.0.0.2\nnameserver 10.0.0.3\n')).toEqual({
      host: '10.0.0.2',
      port: 53,
    });
    expect(firstNameserver('  nameserver ::1\n')).toEqual({ host: '::1', port: 53 });
    expect(firstNameserver('')).toBeNull();
  });

  it('builds reverse names', () => {
    expect(reverseName('192.0.2.1')).toBe('1.2.0.192.in-addr.arpa');
    expect(reverseName('2001:db8::1')).toBe(
      '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
    );
    expect(reverseName('web.test')).toBeNull();
  });
});

describe('DnsProbe.validate', () => {
  const probe = new DnsProbe();

  it('accepts names and full options', () => {
    expect(probe.validate('example.com', {})).toBeNull();
    expect(probe.validate('_sip._tcp.example.com.', { record_type: 'srv' })).toBeNull();
    expect(probe.validate('192.0.2.1', { record_type: 'PTR' })).toBeNull();
    expect(
      probe.validate('example.com', {
        server: '1.1.1.1:53',
        record_type: 'MX',
        expected: 'mx',
        transport: 'tcp',
        timeout: 5,
      }),
    ).toBeNull();
    expect(probe.validate('example.com', { server: '[2606:4700::1111]:53' })).toBeNull();
    expect(probe.validate('example.com', { server: 'dns.example' })).toBeNull();
  });

  it.each([
    ['', {}, 'target must be a DNS name to query'],
    ['exa mple.com', {}, 'target must be a DNS name to query'],
    ['https://example.com', {}, 'target must be a DNS name to query'],
    ['example.com', { server: 'a b' }, 'options.server must be a host or host:port'],
    ['example.com', { server: '1.1.1.1:0' }, 'options.server must be a host or host:port'],
    ['example.com', { server: 53 }, 'options.server must be a host or host:port'],
    [
      'example.com',
      { record_type: 'ANY' },
      'options.record_type must be one of A, AAAA, CNAME, MX, NS, TXT, SOA, SRV, PTR, CAA',
    ],
    ['example.com', { expected: 1 }, 'options.expected must be a string'],
    ['example.com', { transport: 'https' }, 'options.transport must be udp or tcp'],
    ['example.com', { type: 'A' }, 'options.type is not an option of dns sensors'],
  ])('rejects %j %j', (target, options, message) => {
    expect(probe.validate(target, options)).toBe(message);
  });
});
