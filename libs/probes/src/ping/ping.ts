import { randomBytes, randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  icmpAddon,
  type IcmpAddon,
  type IcmpHandle,
  type IcmpListener,
  type IpFamily,
  type SocketKind,
} from './icmp-addon';
import { echoRequest, parseEchoReply } from './icmp-packet';

export interface PingRequest {
  /** Numeric address of the right family. */
  address: string;
  family: IpFamily;
  /** Echo requests to send (1..10). */
  count: number;
  /** The run settles (closing its socket) no later than this. */
  timeoutMs: number;
  /** Spacing of the requests; default 1 s, shortened so the last one leaves within half the time-out. */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** What one run saw. Loss is `count - rtts.length`. */
export interface PingReport {
  ok: true;
  /** The socket that was used: `dgram` (unprivileged) or `raw`. */
  kind: SocketKind;
  address: string;
  count: number;
  /** Requests actually sent (fewer than count after a send error or an abort). */
  sent: number;
  /** Round-trip times in milliseconds, in arrival order. */
  rtts: number[];
  /** Source of the first reply. */
  from: string | null;
  /** Why a send failed (`network is unreachable`), or null. */
  sendError: string | null;
  aborted: boolean;
}

/** No ping was possible: the addon is missing or neither socket could be opened. */
export interface PingFailure {
  ok: false;
  message: string;
}

const SOCKET_LABEL: Readonly<Record<SocketKind, string>> = {
  dgram: 'datagram ICMP socket',
  raw: 'raw ICMP socket',
};

export const PING_GROUP_RANGE_PATH = '/proc/sys/net/ipv4/ping_group_range';

/**
 * Why the kernel refuses datagram ICMP sockets to this process, when that is the sysctl (it
 * admits a process whose gid or any supplementary group lies in the range; it also governs IPv6).
 */
export function pingGroupRangeNote(range: string | null = readPingGroupRange()): string | null {
  if (range === null || typeof process.getegid !== 'function') return null;
  const [low, high] = range.trim().split(/\s+/).map(Number);
  if (!Number.isInteger(low) || !Number.isInteger(high)) return null;
  const gid = process.getegid();
  const groups = [gid, ...(process.getgroups?.() ?? [])];
  return groups.some((group) => group >= low && group <= high)
    ? null
    : `net.ipv4.ping_group_range excludes gid ${gid}`;
}

function readPingGroupRange(): string | null {
  try {
    return readFileSync(PING_GROUP_RANGE_PATH, 'utf8');
  } catch {
    return null;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function openFailureText(kind: SocketKind, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  let note: string | null = null;
  if (kind === 'dgram' && code === 'EACCES') note = pingGroupRangeNote();
  if (kind === 'raw' && code === 'EPERM') note = 'needs root or CAP_NET_RAW';
  return `${SOCKET_LABEL[kind]}: ${errorText(error)}${note ? ` (${note})` : ''}`;
}

/** The unprivileged datagram socket when the kernel allows it, else a raw one; else why neither. */
export function openIcmpSocket(
  addon: IcmpAddon,
  family: IpFamily,
  listener: IcmpListener,
): { kind: SocketKind; handle: IcmpHandle } | PingFailure {
  const failures: string[] = [];
  for (const kind of ['dgram', 'raw'] as const) {
    try {
      return { kind, handle: addon.open(kind, family, listener) };
    } catch (error) {
      failures.push(openFailureText(kind, error));
    }
  }
  return { ok: false, message: `cannot ping: ${failures.join('; ')}` };
}

/**
 * Identifiers for raw sockets, unique among this process's runs in flight (up to 65,536). The
 * kernel replaces them on datagram sockets with the socket's own, and routes replies by it.
 */
let nextIdentifier = randomInt(0x10000);
function takeIdentifier(): number {
  const id = nextIdentifier;
  nextIdentifier = (nextIdentifier + 1) & 0xffff;
  return id;
}

/**
 * One run on a socket of its own: sends `count` echo requests and collects the replies that
 * carry this run's identifier, a sequence it sent, and its random 16-byte payload. Never rejects;
 * settles when every request is answered, at the time-out, on a send error or on abort.
 */
export function ping(
  request: PingRequest,
  addon: IcmpAddon | string = icmpAddon(),
): Promise<PingReport | PingFailure> {
  if (typeof addon === 'string') return Promise.resolve({ ok: false, message: `cannot ping: ${addon}` });
  const { address, family, signal } = request;
  const count = Math.max(1, Math.floor(request.count));
  const timeoutMs = Math.max(0, request.timeoutMs);
  const intervalMs = request.intervalMs ?? Math.max(1, Math.min(1000, Math.floor(timeoutMs / (2 * count))));
  const token = randomBytes(16);
  const id = takeIdentifier();
  const sentAt = new Map<number, bigint>();
  const rtts: number[] = [];
  let from: string | null = null;
  let sent = 0;
  let sendError: string | null = null;
  let kind: SocketKind = 'dgram';

  return new Promise((settle) => {
    if (signal?.aborted) {
      settle({ ok: true, kind, address, count, sent, rtts, from, sendError, aborted: true });
      return;
    }
    let done = false;
    let sendTimer: NodeJS.Timeout | undefined;

    // Called by the addon from the event loop, so never before the run below is set up.
    const listener: IcmpListener = (error, data, source) => {
      if (done || error || data === null) return;
      const reply = parseEchoReply(family, data, kind === 'raw' && family === 4);
      if (reply === null || (kind === 'raw' && reply.id !== id) || !reply.payload.equals(token)) return;
      const start = sentAt.get(reply.sequence);
      if (start === undefined) return; // not ours, or a duplicate
      sentAt.delete(reply.sequence);
      rtts.push(Number(process.hrtime.bigint() - start) / 1e6);
      from ??= source;
      if (sent === count && sentAt.size === 0) finish(false);
    };

    const opened = openIcmpSocket(addon, family, listener);
    if ('ok' in opened) {
      settle(opened);
      return;
    }
    const { handle } = opened;
    kind = opened.kind;
    if (kind === 'raw') {
      try {
        addon.filterEchoReplies(handle, id);
      } catch {
        // Only an optimisation: replies are matched here anyway.
      }
    }
    const deadline = setTimeout(() => finish(false), timeoutMs);
    const onAbort = () => finish(true);
    signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (aborted: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(sendTimer);
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      addon.close(handle);
      settle({ ok: true, kind, address, count, sent, rtts, from, sendError, aborted });
    };

    const sendNext = () => {
      if (done) return;
      const sequence = sent + 1;
      sentAt.set(sequence, process.hrtime.bigint());
      try {
        addon.send(handle, echoRequest(family, id, sequence, token), address);
      } catch (error) {
        sentAt.delete(sequence);
        sendError = errorText(error);
        finish(false);
        return;
      }
      sent = sequence;
      if (sent < count) sendTimer = setTimeout(sendNext, intervalMs);
    };
    sendNext();
  });
}
