import { echoRequest, internetChecksum, parseEchoReply } from './icmp-packet';

function ipv4Header(length: number, optionsLength = 0): Buffer {
  const header = Buffer.alloc(20 + optionsLength);
  header[0] = 0x40 | ((20 + optionsLength) / 4);
  header.writeUInt16BE(20 + optionsLength + length, 2);
  header[8] = 64;
  header[9] = 1; // ICMP
  Buffer.from([127, 0, 0, 1, 127, 0, 0, 1]).copy(header, 12);
  return header;
}

function reply(family: 4 | 6, id: number, sequence: number, payload: Buffer): Buffer {
  const packet = echoRequest(family, id, sequence, payload);
  packet[0] = family === 4 ? 0 : 129;
  return packet;
}

describe('internetChecksum', () => {
  it('matches the worked example of RFC 1071', () => {
    // Words 0001 f203 f4f5 f6f7 sum to 0x2ddf0, folded 0xddf2, complemented 0x220d.
    expect(internetChecksum(Buffer.from([0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]))).toBe(0x220d);
  });

  it('pads an odd length with a zero byte', () => {
    expect(internetChecksum(Buffer.from([0x01]))).toBe(~0x0100 & 0xffff);
    expect(internetChecksum(Buffer.alloc(0))).toBe(0xffff);
  });

  it('sums to zero over a packet that carries it', () => {
    const packet = echoRequest(4, 0xbeef, 7, Buffer.from('0123456789abcdef'));
    expect(internetChecksum(packet)).toBe(0);
  });
});

describe('echoRequest', () => {
  it('lays out an IPv4 echo request with the checksum filled in', () => {
    const packet = echoRequest(4, 0x1234, 0x0102, Buffer.from([0xaa, 0xbb]));
    expect([...packet]).toEqual([8, 0, ...[packet[2], packet[3]], 0x12, 0x34, 0x01, 0x02, 0xaa, 0xbb]);
    expect(packet.readUInt16BE(2)).not.toBe(0);
  });

  it('leaves the ICMPv6 checksum to the kernel (it covers a pseudo-header)', () => {
    const packet = echoRequest(6, 0xffff, 0xffff, Buffer.alloc(0));
    expect([...packet]).toEqual([128, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
  });

  it('wraps identifier and sequence to 16 bits', () => {
    const packet = echoRequest(4, 0x10001, 0x10002, Buffer.alloc(0));
    expect(packet.readUInt16BE(4)).toBe(1);
    expect(packet.readUInt16BE(6)).toBe(2);
  });
});

describe('parseEchoReply', () => {
  const payload = Buffer.from('payload-16-bytes');

  it('reads an IPv4 reply after the IP header of a raw socket', () => {
    const icmp = reply(4, 513, 3, payload);
    expect(parseEchoReply(4, Buffer.concat([ipv4Header(icmp.length), icmp]), true)).toEqual({
      id: 513,
      sequence: 3,
      payload,
    });
  });

  it('honours IP header options (IHL above 5)', () => {
    const icmp = reply(4, 1, 2, payload);
    expect(parseEchoReply(4, Buffer.concat([ipv4Header(icmp.length, 8), icmp]), true)?.sequence).toBe(2);
  });

  it('reads replies of datagram sockets and ICMPv6 from the ICMP header', () => {
    expect(parseEchoReply(4, reply(4, 9, 10, payload), false)).toEqual({ id: 9, sequence: 10, payload });
    expect(parseEchoReply(6, reply(6, 11, 12, payload), false)).toEqual({ id: 11, sequence: 12, payload });
  });

  it('ignores requests, other types, non-zero codes and truncated packets', () => {
    expect(parseEchoReply(4, echoRequest(4, 1, 1, payload), false)).toBeNull();
    expect(parseEchoReply(6, echoRequest(6, 1, 1, payload), false)).toBeNull();
    expect(parseEchoReply(4, reply(6, 1, 1, payload), false)).toBeNull();
    const unreachable = reply(4, 1, 1, payload);
    unreachable[0] = 3;
    expect(parseEchoReply(4, unreachable, false)).toBeNull();
    const coded = reply(4, 1, 1, payload);
    coded[1] = 1;
    expect(parseEchoReply(4, coded, false)).toBeNull();
    expect(parseEchoReply(4, reply(4, 1, 1, payload).subarray(0, 7), false)).toBeNull();
    expect(parseEchoReply(4, Buffer.alloc(10), true)).toBeNull();
    const ipv6Header = Buffer.concat([ipv4Header(8), reply(4, 1, 1, Buffer.alloc(0))]);
    ipv6Header[0] = 0x65;
    expect(parseEchoReply(4, ipv6Header, true)).toBeNull();
  });
});
