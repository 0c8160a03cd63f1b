import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { BLOCKED_ADDRESS_MESSAGE, isBlockedAddress, isBlockedName } from '../address-guard';
import { intOption, type Options } from '../options';
import type { Probe, ProbeOutcome, ProbeRequest } from '../probe';
import { icmpAddon, type IcmpAddon, type IpFamily } from './icmp-addon';
import { ping, type PingFailure, type PingReport } from './ping';

export const PING_DEFAULT_COUNT = 1;
export const PING_MAX_COUNT = 10;
/** Same words as the other probes use when the scheduler stops a run. */
const CANCELLED_MESSAGE = 'probe cancelled';

const HOST_NAME =
  /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/** `[::1]` is accepted for `::1`. */
function hostOf(target: string): string {
  const host = target.trim();
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** `0.4`, `12.3`, `0.04`, `153`. */
export function formatMs(ms: number): string {
  if (ms < 0.1) return String(Number(ms.toPrecision(1)));
  return ms < 100 ? ms.toFixed(1) : String(Math.round(ms));
}

function formatSeconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(1)));
}

/**
 * The outcome users read. Success when at least one reply arrived; the message then shows the
 * loss (`3/4 replies from 127.0.0.1, avg 0.5 ms`) and the latency is the mean round trip.
 */
export function describePing(result: PingReport | PingFailure, timeoutMs: number): ProbeOutcome {
  if (!result.ok) return { success: false, message: result.message, latencyMs: null };
  const { address, count, rtts } = result;
  if (rtts.length > 0) {
    const average = rtts.reduce((sum, rtt) => sum + rtt, 0) / rtts.length;
    const message =
      count === 1
        ? `reply from ${result.from ?? address} in ${formatMs(average)} ms`
        : `${rtts.length}/${count} replies from ${result.from ?? address}, avg ${formatMs(average)} ms`;
    return { success: true, message, latencyMs: Math.round(average * 1000) / 1000 };
  }
  let message: string;
  if (result.sendError !== null) message = `cannot ping ${address}: ${result.sendError}`;
  else if (result.aborted) message = CANCELLED_MESSAGE;
  else {
    message = `no reply from ${address} within ${formatSeconds(timeoutMs)} s`;
    if (count > 1) message += ` (${count} requests)`;
  }
  return { success: false, message, latencyMs: null };
}

type Resolved = { address: string; family: IpFamily } | 'unresolved' | 'timeout' | 'aborted';

/** A literal as is; a name through the system resolver (dns.lookup), bounded by the deadline. */
async function resolveHost(host: string, timeoutMs: number, signal: AbortSignal): Promise<Resolved> {
  const literal = isIP(host);
  if (literal === 4 || literal === 6) return { address: host, family: literal };
  if (signal.aborted) return 'aborted';
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<Resolved>((settle) => {
    timer = setTimeout(() => settle('timeout'), timeoutMs);
    onAbort = () => settle('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const lookedUp = lookup(host).then(
    ({ address, family }): Resolved => (family === 4 || family === 6 ? { address, family } : 'unresolved'),
    (): Resolved => 'unresolved',
  );
  try {
    return await Promise.race([lookedUp, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * ICMP echo through the project's addon: an unprivileged datagram socket when
 * net.ipv4.ping_group_range admits the process, else a raw socket (root or CAP_NET_RAW); when
 * neither opens, the message says which failed and why. Option `count`: 1..10 requests.
 */
export class PingProbe implements Probe {
  readonly type = 'ping';
  readonly secretOptions: readonly string[] = [];
  readonly optionNames: readonly string[] = ['count'];

  constructor(private readonly addon: () => IcmpAddon | string = icmpAddon) {}

  peerHosts(target: string): string[] {
    return [hostOf(target)];
  }

  restrictedDraftProblem(): string | null {
    return null;
  }

  validate(target: string, options: Options): string | null {
    const host = typeof target === 'string' ? hostOf(target) : '';
    if (isIP(host) === 0 && !HOST_NAME.test(host)) return 'target must be a host name or an IP address';
    const count = options.count;
    if (
      count !== undefined &&
      !(typeof count === 'number' && Number.isInteger(count) && count >= 1 && count <= PING_MAX_COUNT)
    ) {
      return `options.count must be an integer from 1 to ${PING_MAX_COUNT}`;
    }
    return null;
  }

  async run({ target, options, timeoutMs, signal, guarded }: ProbeRequest): Promise<ProbeOutcome> {
    const started = performance.now();
    const host = hostOf(target);
    try {
      const count = intOption(options, 'count', PING_DEFAULT_COUNT, 1, PING_MAX_COUNT);
      if (guarded && isBlockedName(host))
        return { success: false, message: BLOCKED_ADDRESS_MESSAGE, latencyMs: null };
      const resolved = await resolveHost(host, timeoutMs, signal);
      // The echo goes to the address checked here, so no later lookup can answer differently.
      if (guarded && typeof resolved === 'object' && isBlockedAddress(resolved.address))
        return { success: false, message: BLOCKED_ADDRESS_MESSAGE, latencyMs: null };
      if (resolved === 'unresolved')
        return { success: false, message: `cannot resolve host ${host}`, latencyMs: null };
      if (resolved === 'timeout') {
        return {
          success: false,
          message: `cannot resolve host ${host} within ${formatSeconds(timeoutMs)} s`,
          latencyMs: null,
        };
      }
      if (resolved === 'aborted') return { success: false, message: CANCELLED_MESSAGE, latencyMs: null };
      const remaining = timeoutMs - (performance.now() - started);
      const result = await ping({ ...resolved, count, timeoutMs: remaining, signal }, this.addon());
      return describePing(result, timeoutMs);
    } catch (error) {
      return {
        success: false,
        message: `ping of ${host} failed: ${error instanceof Error ? error.message : String(error)}`,
        latencyMs: null,
      };
    }
  }
}

export const pingProbe = new PingProbe();
