import { randomInt } from 'node:crypto';
import * as dgram from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import * as net from 'node:net';
import * as dnsPacket from 'dns-packet';
import { resolveGuarded } from '../address-guard';
import { stringOption } from '../options';
import type { Probe, ProbeOutcome, ProbeRequest } from '../probe';
import {
  adminOnlyOptions,
  Deadline,
  checkKnownOptions,
  checkString,
  checkTimeout,
  elapsedMs,
  firstProblem,
  networkErrorMessage,
  quote,
} from '../probe-messages';
import { isHost, parseHostPort, type HostPort } from '../tcp/host-port';

export const DNS_RECORD_TYPES = [
  'A',
  'AAAA',
  'CNAME',
  'MX',
  'NS',
  'TXT',
  'SOA',
  'SRV',
  'PTR',
  'CAA',
] as const;
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];
const OPTION_NAMES = ['server', 'record_type', 'expected', 'transport'];
/** Records listed in a message; the rest are counted. */
const LISTED_RECORDS = 10;
/** What we offer to receive over UDP (EDNS0), the common safe size that avoids fragmentation. */
const UDP_PAYLOAD_SIZE = 1232;
const DNS_NAME =
  /^(?=.{1,253}\.?$)(?:[A-Za-z0-9_*](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.?$/;

export interface DnsProbeSettings {
  /** Where the default server is read from (tests). */
  resolvConfPath?: string;
}

type Transport = 'udp' | 'tcp';

/** Raised when the reply cannot be decoded or does not belong to our query. */
class MalformedReplyError extends Error {}

/** The first `nameserver` line of a resolv.conf text, as host:53 (a scope id is kept). */
export function firstNameserver(text: string): HostPort | null {
  for (const line of text.split('\n')) {
    const match = /^\s*nameserver\s+(\S+)/.exec(line);
    if (match) return parseHostPort(match[1], 53) ?? { host: match[1], port: 53 };
  }
  return null;
}

/** The reverse-lookup name of an IP address, for PTR queries given an address as target. */
export function reverseName(ip: string): string | null {
  if (net.isIP(ip) === 4) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  if (net.isIP(ip) !== 6) return null;
  const [head, tail = ''] = ip.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = groups(tail);
  if (right.length && right[right.length - 1].includes('.')) return null; // IPv4-mapped: rare, not handled
  const full = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const nibbles = full.map((group) => group.padStart(4, '0')).join('');
  return `${[...nibbles].reverse().join('.')}.ip6.arpa`;
}

/** One record's data as users write it: `10 mail.example.com`, `"v=spf1 -all"`. */
export function formatRecord(answer: dnsPacket.Answer): string {
  const type: string = answer.type;
  if (
    type === 'A' ||
    type === 'AAAA' ||
    type === 'CNAME' ||
    type === 'NS' ||
    type === 'PTR' ||
    type === 'DNAME'
  ) {
    return String((answer as dnsPacket.StringAnswer).data);
  }
  if (answer.type === 'MX') return `${answer.data.preference} ${answer.data.exchange}`;
  if (answer.type === 'TXT') {
    const parts = Array.isArray(answer.data) ? answer.data : [answer.data];
    return JSON.stringify(parts.map((part) => part.toString()).join(''));
  }
  if (answer.type === 'SOA') {
    const soa = answer.data;
    return `${soa.mname} ${soa.rname} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`;
  }
  if (answer.type === 'SRV') {
    return `${answer.data.priority} ${answer.data.weight} ${answer.data.port} ${answer.data.target}`;
  }
  if (answer.type === 'CAA')
    return `${answer.data.flags} ${answer.data.tag} ${JSON.stringify(answer.data.value)}`;
  return type;
}

function recordType(options: Readonly<Record<string, unknown>>): DnsRecordType {
  const value = stringOption(options, 'record_type', 'A').toUpperCase();
  return (DNS_RECORD_TYPES as readonly string[]).includes(value) ? (value as DnsRecordType) : 'A';
}

/**
 * Builds its own query with dns-packet, sends it over UDP (falling back to TCP when the answer is
 * truncated) or TCP to one server, and judges the records that came back. The system resolver is
 * used only to find the address of a server given by name.
 */
export class DnsProbe implements Probe {
  readonly type = 'dns';
  readonly secretOptions: readonly string[] = [];
  readonly optionNames = OPTION_NAMES;
  private defaultServer: Promise<HostPort | null> | null = null;

  constructor(private readonly settings: DnsProbeSettings = {}) {}

  validate(target: string, options: Readonly<Record<string, unknown>>): string | null {
    return firstProblem(
      () => (DNS_NAME.test(target) || net.isIP(target) !== 0 ? null : 'target must be a DNS name to query'),
      () => checkKnownOptions(this.type, options, OPTION_NAMES),
      () => checkTimeout(options),
      () => {
        if (options.server === undefined) return null;
        const server = typeof options.server === 'string' ? parseHostPort(options.server, 53) : null;
        return server && isHost(server.host) ? null : 'options.server must be a host or host:port';
      },
      () =>
        options.record_type === undefined ||
        (typeof options.record_type === 'string' &&
          (DNS_RECORD_TYPES as readonly string[]).includes(options.record_type.toUpperCase()))
          ? null
          : `options.record_type must be one of ${DNS_RECORD_TYPES.join(', ')}`,
      () => checkString(options, 'expected'),
      () =>
        options.transport === undefined || options.transport === 'udp' || options.transport === 'tcp'
          ? null
          : 'options.transport must be udp or tcp',
    );
  }

  /** The server is the peer; the queried name is only asked about. */
  peerHosts(_target: string, options: Readonly<Record<string, unknown>>): string[] {
    const server = typeof options.server === 'string' ? parseHostPort(options.server, 53) : null;
    return server ? [server.host] : [];
  }

  /** The records are what the server sent: an expected substring would be an oracle on them. */
  restrictedDraftProblem(options: Readonly<Record<string, unknown>>): string | null {
    return adminOnlyOptions(options, ['expected']);
  }

  async run({ target, options, timeoutMs, signal, guarded }: ProbeRequest): Promise<ProbeOutcome> {
    const type = recordType(options);
    const name = type === 'PTR' ? (reverseName(target) ?? target) : target;
    const transport: Transport = options.transport === 'tcp' ? 'tcp' : 'udp';
    const expected = stringOption(options, 'expected', '');

    const deadline = new Deadline(timeoutMs, signal);
    let serverHost = '';
    try {
      const configured = typeof options.server === 'string' ? parseHostPort(options.server, 53) : null;
      const server = configured ?? (await deadline.race(this.systemServer()));
      if (!server) {
        return { success: false, message: 'no DNS server: set options.server', latencyMs: null };
      }
      serverHost = server.host;
      // Guarded: the query goes to the address the guard checked.
      const address = guarded
        ? (await deadline.race(resolveGuarded(server.host))).address
        : net.isIP(server.host)
          ? server.host
          : (await deadline.race(lookup(server.host))).address;

      const id = randomInt(0, 65536);
      const query: dnsPacket.Packet = {
        type: 'query',
        id,
        flags: dnsPacket.RECURSION_DESIRED,
        questions: [{ type, name, class: 'IN' }],
        additionals: [{ type: 'OPT', name: '.', udpPayloadSize: UDP_PAYLOAD_SIZE } as dnsPacket.Answer],
      };
      const startedAt = performance.now();
      let reply =
        transport === 'udp'
          ? await overUdp(query, address, server.port, deadline)
          : await overTcp(query, address, server.port, deadline);
      if (transport === 'udp' && reply.flag_tc) reply = await overTcp(query, address, server.port, deadline);
      const latencyMs = elapsedMs(startedAt);
      return { ...judge(reply, type, expected), latencyMs };
    } catch (error) {
      let message: string;
      if (deadline.aborted) message = deadline.message;
      else if (error instanceof MalformedReplyError) message = `malformed answer from ${serverHost}`;
      else message = networkErrorMessage(error, serverHost);
      return { success: false, message, latencyMs: null };
    } finally {
      deadline.dispose();
    }
  }

  /** The first nameserver of resolv.conf, read once per probe instance. */
  private systemServer(): Promise<HostPort | null> {
    this.defaultServer ??= readFile(this.settings.resolvConfPath ?? '/etc/resolv.conf', 'utf8').then(
      firstNameserver,
      () => null,
    );
    return this.defaultServer;
  }
}

function judge(
  reply: dnsPacket.DecodedPacket,
  type: DnsRecordType,
  expected: string,
): Omit<ProbeOutcome, 'latencyMs'> {
  const rcode = (reply as { rcode?: string }).rcode ?? 'NOERROR';
  if (rcode !== 'NOERROR') return { success: false, message: rcode };
  const records = (reply.answers ?? []).filter((answer) => answer.type === type).map(formatRecord);
  if (records.length === 0) return { success: false, message: `no ${type} records` };
  const shown = records.slice(0, LISTED_RECORDS).join(', ');
  const listing = `${type} ${shown}${records.length > LISTED_RECORDS ? ` (+${records.length - LISTED_RECORDS} more)` : ''}`;
  if (expected !== '') {
    const wanted = expected.toLowerCase();
    if (!records.some((record) => record.toLowerCase().includes(wanted))) {
      return { success: false, message: `expected ${quote(expected)} not in answer: ${listing}` };
    }
  }
  return { success: true, message: listing };
}

/** Checks that a reply answers our query: same id, a response, the same question. */
function matches(reply: dnsPacket.DecodedPacket, query: dnsPacket.Packet): boolean {
  const asked = query.questions?.[0];
  const echoed = reply.questions?.[0];
  return (
    reply.id === query.id &&
    reply.type === 'response' &&
    (echoed === undefined ||
      (echoed.type === asked?.type && echoed.name.toLowerCase() === asked.name.toLowerCase()))
  );
}

function overUdp(
  query: dnsPacket.Packet,
  host: string,
  port: number,
  deadline: Deadline,
): Promise<dnsPacket.DecodedPacket> {
  const socket = dgram.createSocket(net.isIP(host) === 6 ? 'udp6' : 'udp4');
  const close = (): void => {
    try {
      socket.close();
    } catch {
      // already closed
    }
  };
  const reply = new Promise<dnsPacket.DecodedPacket>((resolve, reject) => {
    socket.on('error', reject); // a connected UDP socket reports ICMP port unreachable as ECONNREFUSED
    socket.on('message', (message) => {
      let decoded: dnsPacket.DecodedPacket;
      try {
        decoded = dnsPacket.decode(message);
      } catch {
        reject(new MalformedReplyError());
        return;
      }
      if (matches(decoded, query)) resolve(decoded); // anything else is not ours: keep waiting
    });
    // connect() makes the kernel drop datagrams from any other address.
    socket.connect(port, host, () => socket.send(dnsPacket.encode(query), (error) => error && reject(error)));
  });
  return deadline.race(reply).finally(close);
}

function overTcp(
  query: dnsPacket.Packet,
  host: string,
  port: number,
  deadline: Deadline,
): Promise<dnsPacket.DecodedPacket> {
  const socket = net.connect({ host, port });
  const reply = new Promise<dnsPacket.DecodedPacket>((resolve, reject) => {
    let buffered: Buffer = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('connect', () => socket.write(dnsPacket.streamEncode(query)));
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      if (buffered.length < 2) return;
      let decoded: dnsPacket.DecodedPacket | null;
      try {
        decoded = dnsPacket.streamDecode(buffered) as dnsPacket.DecodedPacket | null;
      } catch {
        reject(new MalformedReplyError());
        return;
      }
      if (decoded === null) return; // more to come
      if (matches(decoded, query)) resolve(decoded);
      else reject(new MalformedReplyError());
    });
    socket.on('end', () => reject(new Error('connection closed before an answer')));
  });
  return deadline.race(reply).finally(() => socket.destroy());
}
