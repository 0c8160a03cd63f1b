import type { IpFamily } from './icmp-addon';

/**
 * ICMP echo on the wire (RFC 792, RFC 4443): type, code, checksum, identifier, sequence, payload.
 * The kernel fills the identifier and checksum of datagram sockets and the checksum of every
 * ICMPv6 socket; only raw IPv4 needs ours. Replies read from raw IPv4 sockets start with the IP
 * header; everything else starts at the ICMP header.
 */
export const ECHO_REQUEST: Readonly<Record<IpFamily, number>> = { 4: 8, 6: 128 };
export const ECHO_REPLY: Readonly<Record<IpFamily, number>> = { 4: 0, 6: 129 };
const HEADER_LENGTH = 8;

/** Internet checksum: ones' complement of the ones' complement sum of 16-bit big-endian words. */
export function internetChecksum(bytes: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < bytes.length; i += 2) {
    sum += (bytes[i] << 8) + (i + 1 < bytes.length ? bytes[i + 1] : 0);
  }
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

export function echoRequest(family: IpFamily, id: number, sequence: number, payload: Uint8Array): Buffer {
  const packet = Buffer.alloc(HEADER_LENGTH + payload.length);
  packet[0] = ECHO_REQUEST[family];
  packet.writeUInt16BE(id & 0xffff, 4);
  packet.writeUInt16BE(sequence & 0xffff, 6);
  packet.set(payload, HEADER_LENGTH);
  if (family === 4) packet.writeUInt16BE(internetChecksum(packet), 2);
  return packet;
}

export interface EchoReply {
  id: number;
  sequence: number;
  payload: Buffer;
}

/** The echo reply in `data`, or null for anything else (other types, truncated packets). */
export function parseEchoReply(family: IpFamily, data: Buffer, withIpHeader: boolean): EchoReply | null {
  let offset = 0;
  if (withIpHeader) {
    if (data.length < 20 || data[0] >> 4 !== 4) return null;
    offset = (data[0] & 0x0f) * 4;
  }
  if (data.length < offset + HEADER_LENGTH) return null;
  if (data[offset] !== ECHO_REPLY[family] || data[offset + 1] !== 0) return null;
  return {
    id: data.readUInt16BE(offset + 4),
    sequence: data.readUInt16BE(offset + 6),
    payload: data.subarray(offset + HEADER_LENGTH),
  };
}
