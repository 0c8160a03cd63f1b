import * as dgram from 'node:dgram';
import { once } from 'node:events';
import * as net from 'node:net';
import * as dnsPacket from 'dns-packet';

/**
 * A tiny authoritative DNS server for tests, on 127.0.0.1, answering over UDP and TCP on the same
 * port. Written with dns-packet; it records every question it receives.
 */
export interface DnsServerConfig {
  /** The zone: every record the server knows. A name with no record at all is NXDOMAIN. */
  records: dnsPacket.Answer[];
  /** Names (lower case) answered with this rcode instead, e.g. `{ 'broken.test': 2 }` (SERVFAIL). */
  rcodes?: Record<string, number>;
  /** Never answer anything (UDP dropped, TCP accepted and left silent). */
  silent?: boolean;
  /** Over UDP answer with the TC bit and no records, forcing a TCP retry. */
  truncateUdp?: boolean;
}

export interface SeenQuery {
  transport: 'udp' | 'tcp';
  name: string;
  type: string;
  recursionDesired: boolean;
}

export interface DnsTestServer {
  port: number;
  /** `127.0.0.1:<port>`, ready for the probe's `server` option. */
  address: string;
  queries: SeenQuery[];
  close(): Promise<void>;
}

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

function answer(
  config: DnsServerConfig,
  query: dnsPacket.DecodedPacket,
  truncated: boolean,
): dnsPacket.Packet {
  const question = query.questions?.[0];
  const name = (question?.name ?? '').toLowerCase();
  let rcode: number = RCODE.NOERROR;
  let answers: dnsPacket.Answer[] = [];
  if (!question) rcode = RCODE.FORMERR;
  else if (config.rcodes?.[name] !== undefined) rcode = config.rcodes[name];
  else if (!config.records.some((record) => record.name.toLowerCase() === name)) rcode = RCODE.NXDOMAIN;
  else if (!truncated) {
    // Follow a CNAME the way a resolver would: the alias first, then the records it points to.
    let current = name;
    for (let hops = 0; hops < 8; hops++) {
      const here = config.records.filter((record) => record.name.toLowerCase() === current);
      const direct = here.filter((record) => record.type === question.type);
      const alias = here.find((record) => record.type === 'CNAME');
      if (direct.length > 0 || !alias || question.type === 'CNAME') {
        answers = answers.concat(direct);
        break;
      }
      answers.push(alias);
      current = String((alias as dnsPacket.StringAnswer).data).toLowerCase();
    }
  }
  return {
    type: 'response',
    id: query.id,
    flags:
      dnsPacket.AUTHORITATIVE_ANSWER |
      (query.flag_rd ? dnsPacket.RECURSION_DESIRED : 0) |
      (truncated ? dnsPacket.TRUNCATED_RESPONSE : 0) |
      rcode,
    questions: query.questions,
    answers: answers.map((record) => ({ ttl: 60, class: 'IN', ...record }) as dnsPacket.Answer),
  };
}

function record(queries: SeenQuery[], transport: 'udp' | 'tcp', query: dnsPacket.DecodedPacket): void {
  const question = query.questions?.[0];
  queries.push({
    transport,
    name: question?.name ?? '',
    type: question?.type ?? '',
    recursionDesired: query.flag_rd,
  });
}

async function bindBoth(udp: dgram.Socket, tcp: net.Server): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    tcp.listen(0, '127.0.0.1');
    await once(tcp, 'listening');
    const port = (tcp.address() as net.AddressInfo).port;
    try {
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(port, '127.0.0.1', () => {
          udp.off('error', reject);
          resolve();
        });
      });
      return port;
    } catch (error) {
      await new Promise((resolve) => tcp.close(resolve));
      if (attempt >= 5) throw error;
    }
  }
}

export async function startDnsServer(config: DnsServerConfig): Promise<DnsTestServer> {
  const queries: SeenQuery[] = [];
  const sockets = new Set<net.Socket>();

  const udp = dgram.createSocket('udp4');
  udp.on('message', (message, peer) => {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    record(queries, 'udp', query);
    if (config.silent) return;
    udp.send(dnsPacket.encode(answer(config, query, config.truncateUdp === true)), peer.port, peer.address);
  });

  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const query =
          buffered.length >= 2 ? (dnsPacket.streamDecode(buffered) as dnsPacket.DecodedPacket | null) : null;
        if (!query) break;
        buffered = buffered.subarray(2 + buffered.readUInt16BE(0));
        record(queries, 'tcp', query);
        if (!config.silent) socket.write(dnsPacket.streamEncode(answer(config, query, false)));
      }
    });
  });

  const port = await bindBoth(udp, tcp);
  return {
    port,
    address: `127.0.0.1:${port}`,
    queries,
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      await Promise.all([
        new Promise((resolve) => tcp.close(resolve)),
        new Promise<void>((resolve) => udp.close(resolve)),
      ]);
    },
  };
}
