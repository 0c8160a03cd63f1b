import { isIP } from 'node:net';
import * as snmp from 'net-snmp';
import { resolveGuarded } from '../address-guard';
import { intOption, numberOption, stringOption } from '../options';
import type { Probe, ProbeOutcome, ProbeRequest } from '../probe';
import {
  adminOnlyOptions,
  Deadline,
  checkInteger,
  checkKnownOptions,
  checkNumber,
  checkString,
  checkTimeout,
  elapsedMs,
  firstProblem,
  quote,
  timedOutMessage,
} from '../probe-messages';
import { isHost } from '../tcp/host-port';

const OPTION_NAMES = ['community', 'oid', 'port', 'expected', 'min', 'max'];
const OID = /^\.?(?:0|[1-9]\d*)(?:\.(?:0|[1-9]\d*))+$/;
const MAX_VALUE_LENGTH = 200;
const PRINTABLE = /^[\P{Cc}\t\r\n]*$/u;

interface Reading {
  /** What users read after `<oid> = `. */
  text: string;
  /** The value as a number when it is one (counters, gauges, numeric strings), else null. */
  numeric: number | null;
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Reads a varbind value the way snmpget prints it, numbers kept for range checks. */
export function readVarbind(varbind: snmp.Varbind): Reading {
  const value: unknown = varbind.value;
  const type = varbind.type;
  if (type === snmp.ObjectType.Counter64) {
    const big = Buffer.isBuffer(value)
      ? BigInt(value.length === 0 ? '0' : `0x${value.toString('hex')}`)
      : BigInt(Number(value) || 0);
    return { text: big.toString(), numeric: Number(big) };
  }
  if (
    type === snmp.ObjectType.Integer ||
    type === snmp.ObjectType.Counter ||
    type === snmp.ObjectType.Gauge ||
    type === snmp.ObjectType.TimeTicks
  ) {
    return { text: String(value), numeric: typeof value === 'number' ? value : Number(value) };
  }
  if (type === snmp.ObjectType.OctetString) {
    const bytes = Buffer.isBuffer(value) ? value : Buffer.from(String(value ?? ''));
    const text = bytes.toString('utf8');
    if (!PRINTABLE.test(text) || text.includes('\uFFFD'))
      return { text: `0x${bytes.toString('hex')}`, numeric: null };
    const trimmed = text.trim();
    return { text, numeric: trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : null };
  }
  if (Buffer.isBuffer(value)) return { text: `0x${value.toString('hex')}`, numeric: null };
  return { text: String(value), numeric: null };
}

const VARBIND_PROBLEMS = new Map<snmp.ObjectType | undefined, string>([
  [snmp.ObjectType.NoSuchObject, 'no such object'],
  [snmp.ObjectType.NoSuchInstance, 'no such instance'],
  [snmp.ObjectType.EndOfMibView, 'end of MIB view'],
]);

function varbindProblem(varbind: snmp.Varbind): string {
  return VARBIND_PROBLEMS.get(varbind.type) ?? snmp.varbindError(varbind);
}

/**
 * One SNMP v2c GET of one OID with net-snmp, judged against a substring and/or a numeric range.
 * Never a SET, GETNEXT, GETBULK or walk. The community is a secret: it goes into the request
 * and nowhere else, and every message is scrubbed of it as a last line of defence.
 */
export class SnmpProbe implements Probe {
  readonly type = 'snmp';
  readonly secretOptions: readonly string[] = ['community'];
  readonly optionNames = OPTION_NAMES;

  validate(target: string, options: Readonly<Record<string, unknown>>): string | null {
    return firstProblem(
      () => (isHost(stripBrackets(target)) ? null : 'target must be a host name or IP address'),
      () => checkKnownOptions(this.type, options, OPTION_NAMES),
      () => checkTimeout(options),
      () =>
        options.oid === undefined || options.oid === ''
          ? 'options.oid is required'
          : typeof options.oid === 'string' && OID.test(options.oid)
            ? null
            : 'options.oid must be a numeric OID like 1.3.6.1.2.1.1.3.0',
      () =>
        options.community === undefined ||
        (typeof options.community === 'string' && options.community !== '' && options.community.length <= 255)
          ? null
          : 'options.community must be a non-empty string',
      () => checkInteger(options, 'port', 1, 65535),
      () => checkString(options, 'expected'),
      () => checkNumber(options, 'min'),
      () => checkNumber(options, 'max'),
      () =>
        typeof options.min === 'number' && typeof options.max === 'number' && options.min > options.max
          ? 'options.min must not be greater than options.max'
          : null,
    );
  }

  peerHosts(target: string): string[] {
    return [stripBrackets(target)];
  }

  /** The value is what the agent sent: an expected substring or a range would be an oracle on it. */
  restrictedDraftProblem(options: Readonly<Record<string, unknown>>): string | null {
    return adminOnlyOptions(options, ['expected', 'min', 'max']);
  }

  async run({ target, options, timeoutMs, signal, guarded }: ProbeRequest): Promise<ProbeOutcome> {
    const community = stringOption(options, 'community', 'public');
    const scrub = (message: string): string => message.split(community).join('***');
    const oid = stringOption(options, 'oid', '').replace(/^\./, '');
    if (!OID.test(oid)) return { success: false, message: 'options.oid is required', latencyMs: null };
    const named = stripBrackets(target);

    const deadline = new Deadline(timeoutMs, signal);
    let session: snmp.Session | undefined;
    try {
      // Guarded: the request goes to the address the guard checked, not to a second lookup.
      const host = guarded ? (await deadline.race(resolveGuarded(named))).address : named;
      session = snmp.createSession(host, community, {
        version: snmp.Version2c,
        port: intOption(options, 'port', 161, 1, 65535),
        transport: isIP(host) === 6 ? 'udp6' : 'udp4',
        // One resend within the time-out; the deadline is the hard limit either way.
        retries: 1,
        timeout: Math.max(1, Math.floor(timeoutMs / 2)),
      });
      session.on('error', () => undefined);
      const startedAt = performance.now();
      const open = session;
      const varbinds = await deadline.race(
        new Promise<snmp.Varbind[]>((resolve, reject) =>
          open.get([oid], (error, result) => (error ? reject(error) : resolve(result ?? []))),
        ),
      );
      const latencyMs = elapsedMs(startedAt);
      const varbind = varbinds[0];
      if (!varbind) return { success: false, message: `${oid}: empty answer`, latencyMs };
      if (snmp.isVarbindError(varbind))
        return { success: false, message: scrub(`${oid}: ${varbindProblem(varbind)}`), latencyMs };
      return { ...judge(oid, readVarbind(varbind), options, scrub), latencyMs };
    } catch (error) {
      const name = (error as { name?: unknown } | null)?.name;
      let message: string;
      if (deadline.aborted) message = deadline.message;
      else if (name === 'RequestTimedOutError') message = timedOutMessage(timeoutMs);
      else {
        const text = String((error as { message?: unknown } | null)?.message ?? error);
        message = name === 'RequestFailedError' ? `${oid}: agent answered ${text}` : `SNMP error: ${text}`;
      }
      return { success: false, message: scrub(message), latencyMs: null };
    } finally {
      deadline.dispose();
      try {
        session?.close();
      } catch {
        // already closed
      }
    }
  }
}

function judge(
  oid: string,
  reading: Reading,
  options: Readonly<Record<string, unknown>>,
  scrub: (message: string) => string,
): Omit<ProbeOutcome, 'latencyMs'> {
  const shown =
    reading.text.length > MAX_VALUE_LENGTH
      ? `${reading.text.slice(0, MAX_VALUE_LENGTH - 3)}...`
      : reading.text;
  const base = scrub(`${oid} = ${shown}`);
  const expected = stringOption(options, 'expected', '');
  if (expected !== '' && !reading.text.toLowerCase().includes(expected.toLowerCase())) {
    return { success: false, message: `${base} (expected ${quote(scrub(expected))})` };
  }
  const min = numberOption(options, 'min', null);
  const max = numberOption(options, 'max', null);
  if (min !== null || max !== null) {
    if (reading.numeric === null) return { success: false, message: `${base} (not a number)` };
    const value = reading.numeric;
    if ((min !== null && value < min) || (max !== null && value > max)) {
      const range =
        min !== null && max !== null
          ? `outside ${min}..${max}`
          : min !== null
            ? `below ${min}`
            : `above ${max}`;
      return { success: false, message: `${base} (${range})` };
    }
  }
  return { success: true, message: base };
}
