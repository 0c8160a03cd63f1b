import { TLSSocket } from 'node:tls';
import { BlockedAddressError, guardedLookup, isBlockedName } from '../address-guard';
import { Agent, buildConnector, interceptors, request, type Dispatcher } from 'undici';
import { boolOption, intOption, stringMapOption, stringOption, type Options } from '../options';
import type { Probe, ProbeOutcome, ProbeRequest } from '../probe';
import {
  Deadline,
  adminOnlyOption,
  adminOnlyOptions,
  checkBoolean,
  checkInteger,
  checkKnownOptions,
  checkString,
  checkTimeout,
  elapsedMs,
  expiresInMessage,
  certificateExpiryProblem,
  firstProblem,
  networkErrorMessage,
  peerCertificateDates,
  quote,
  verifyPeer,
  type CertificateDates,
} from '../probe-messages';
import { validateBasicAuth, validateHeaders, validateMethod, validateUrl } from './http-validation';
import { JSON_OPTION_NAMES, jsonCheckOf, runJsonCheck, validateJsonCheck } from './json-check';

export { HTTP_METHODS, URL_CREDENTIALS_PROBLEM } from './http-validation';

export const DEFAULT_EXPECTED_STATUS = '200-399';
/** The most of a body read for the keyword and JSON checks; the rest is not downloaded. */
export const MAX_BODY_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 10;
const USER_AGENT = 'monitor-uptime-probe';
const OPTION_NAMES = [
  'method',
  'headers',
  'body',
  'expected_status',
  'keyword',
  'invert_keyword',
  'follow_redirects',
  'insecure_skip_verify',
  'cert_warn_days',
  'basic_auth_user',
  'basic_auth_password',
  ...JSON_OPTION_NAMES,
];
/** Options a draft probe below administrator may not set: request shaping and checks of the body. */
const ADMIN_ONLY_DRAFT_OPTIONS = [
  'headers',
  'body',
  'basic_auth_user',
  'basic_auth_password',
  'keyword',
  ...JSON_OPTION_NAMES,
];

export interface HttpProbeSettings {
  /** Authorities to trust instead of Node's bundled roots (tests; private PKI). */
  ca?: string | string[];
}

type StatusRanges = ReadonlyArray<readonly [number, number]>;

/** Parses `"200-299,301"`; null when the syntax is wrong. */
export function parseExpectedStatus(spec: string): StatusRanges | null {
  const ranges: Array<[number, number]> = [];
  for (const part of spec.split(',')) {
    const match = /^\s*(\d{3})\s*(?:-\s*(\d{3})\s*)?$/.exec(part);
    if (!match) return null;
    const low = Number(match[1]);
    const high = match[2] === undefined ? low : Number(match[2]);
    if (low < 100 || high > 599 || low > high) return null;
    ranges.push([low, high]);
  }
  return ranges;
}

const DEFAULT_RANGES = parseExpectedStatus(DEFAULT_EXPECTED_STATUS) as StatusRanges;
const rangeCache = new Map<string, StatusRanges>();

/** Run-time reading of expected_status: a malformed spec falls back to the default. */
function expectedRanges(options: Options): StatusRanges {
  const spec = stringOption(options, 'expected_status', DEFAULT_EXPECTED_STATUS);
  let ranges = rangeCache.get(spec);
  if (!ranges) {
    ranges = parseExpectedStatus(spec) ?? DEFAULT_RANGES;
    if (rangeCache.size >= 1000) rangeCache.clear();
    rangeCache.set(spec, ranges);
  }
  return ranges;
}

function stripBrackets(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function originKey(hostname: string, port: string | number | null | undefined): string {
  return `${stripBrackets(hostname)}:${Number(port) || 443}`;
}

/**
 * Requests a URL with undici and judges status, keyword and certificate.
 *
 * Connections are pooled: one undici Agent per `insecure_skip_verify` setting, shared by every
 * sensor this instance runs (the catalogue holds one instance), each wrapped once more for
 * redirects. TLS is verified by Node with `rejectUnauthorized: false` and then judged by
 * `verifyPeer` before any byte of the request is sent, so a rejected certificate can still be
 * named with its dates. The leaf certificate of every new connection is remembered per
 * host:port, which is how `cert_warn_days` reads it for a request on a kept-alive connection.
 */
export class HttpProbe implements Probe {
  readonly type = 'http';
  /** Header values and the body carry tokens and passwords as often as basic auth does. */
  readonly secretOptions: readonly string[] = ['headers', 'body', 'basic_auth_password'];
  readonly optionNames = OPTION_NAMES;

  private readonly agents = new Map<string, Agent>();
  private readonly dispatchers = new Map<string, Dispatcher>();
  private readonly certificates = new Map<string, CertificateDates>();

  constructor(private readonly settings: HttpProbeSettings = {}) {}

  validate(target: string, options: Readonly<Record<string, unknown>>): string | null {
    return firstProblem(
      () => validateUrl(target),
      () => checkKnownOptions(this.type, options, OPTION_NAMES),
      () => checkTimeout(options),
      () => validateMethod(options.method),
      () => validateHeaders(options.headers),
      () => validateBasicAuth(options),
      () => checkString(options, 'body', 1024 * 1024),
      () =>
        typeof options.body === 'string' &&
        options.body !== '' &&
        ['GET', 'HEAD'].includes(String(options.method ?? 'GET').toUpperCase())
          ? 'options.body needs options.method other than GET or HEAD'
          : null,
      () =>
        options.expected_status === undefined ||
        (typeof options.expected_status === 'string' && parseExpectedStatus(options.expected_status))
          ? null
          : 'options.expected_status must look like "200-299,301" (codes 100 to 599)',
      () => checkString(options, 'keyword'),
      () => checkBoolean(options, 'invert_keyword'),
      () => checkBoolean(options, 'follow_redirects'),
      () => checkBoolean(options, 'insecure_skip_verify'),
      () => checkInteger(options, 'cert_warn_days', 0, 3650),
      () => validateJsonCheck(options),
    );
  }

  peerHosts(target: string): string[] {
    try {
      return [stripBrackets(new URL(target).hostname)];
    } catch {
      return [];
    }
  }

  restrictedDraftProblem(options: Readonly<Record<string, unknown>>): string | null {
    const method = typeof options.method === 'string' ? options.method.toUpperCase() : 'GET';
    if (method !== 'GET' && method !== 'HEAD') return adminOnlyOption('method', `${method} is allowed`);
    return adminOnlyOptions(options, ADMIN_ONLY_DRAFT_OPTIONS);
  }

  async run({ target, options, timeoutMs, signal, guarded = false }: ProbeRequest): Promise<ProbeOutcome> {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return { success: false, message: 'target is not a valid URL', latencyMs: null, statusCode: null };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return {
        success: false,
        message: 'target must be an http or https URL',
        latencyMs: null,
        statusCode: null,
      };
    }
    const host = stripBrackets(url.hostname);
    const method = stringOption(options, 'method', 'GET').toUpperCase();
    const keyword = stringOption(options, 'keyword', '');
    const jsonCheck = jsonCheckOf(options);
    const insecure = boolOption(options, 'insecure_skip_verify', false);
    const follow = boolOption(options, 'follow_redirects', true);
    const warnDays = intOption(options, 'cert_warn_days', 0, 0, 3650);
    const headers = stringMapOption(options, 'headers');
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent'))
      headers['user-agent'] = USER_AGENT;
    const user = stringOption(options, 'basic_auth_user', '');
    if (user !== '') {
      const password = stringOption(options, 'basic_auth_password', '');
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    }
    const body =
      typeof options.body === 'string' && method !== 'GET' && method !== 'HEAD' ? options.body : undefined;

    const deadline = new Deadline(timeoutMs, signal);
    const startedAt = performance.now();
    let latencyMs: number | null = null;
    try {
      const response = await deadline.race(
        request(url, {
          dispatcher: this.dispatcher(insecure, follow, guarded),
          method: method as Dispatcher.HttpMethod,
          headers,
          body,
          signal: deadline.signal,
        }),
      );
      latencyMs = elapsedMs(startedAt);
      const status = response.statusCode;
      const text =
        keyword === '' && jsonCheck === null ? null : await deadline.race(readCapped(response.body));
      if (text === null) {
        // Drain a small body so the connection goes back to the pool; a large one closes it.
        await deadline.race(response.body.dump({ limit: 64 * 1024 })).catch(() => undefined);
      }
      const fail = (message: string): ProbeOutcome => ({
        success: false,
        message,
        latencyMs,
        statusCode: status,
      });

      if (!inRanges(status, expectedRanges(options))) return fail(`HTTP ${status}`);
      if (follow && status >= 300 && status < 400 && response.headers.location !== undefined) {
        return fail(`HTTP ${status}, more than ${MAX_REDIRECTS} redirects`);
      }
      if (text !== null && keyword !== '') {
        const found = text.includes(keyword);
        const invert = boolOption(options, 'invert_keyword', false);
        if (found === invert) return fail(`keyword ${quote(keyword)} ${found ? 'found' : 'not found'}`);
      }
      if (text !== null && jsonCheck !== null) {
        const cut = Buffer.byteLength(text) >= MAX_BODY_BYTES ? MAX_BODY_BYTES : null;
        const problem = runJsonCheck(jsonCheck, text, cut);
        if (problem) return fail(problem);
      }
      let message = `HTTP ${status}`;
      const certificate =
        url.protocol === 'https:' ? this.certificates.get(originKey(host, url.port)) : undefined;
      const certExpiresAt = certificate?.validTo.getTime();
      if (certificate && warnDays > 0) {
        const problem = certificateExpiryProblem(certificate, warnDays);
        if (problem) return { ...fail(problem), certExpiresAt };
        message += `, ${expiresInMessage(certificate)}`;
      }
      return { success: true, message, latencyMs, statusCode: status, certExpiresAt };
    } catch (error) {
      const message = deadline.aborted
        ? deadline.message
        : /^Redirect loop detected/.test(String((error as { message?: unknown }).message))
          ? 'redirect loop'
          : networkErrorMessage(error, host);
      return { success: false, message, latencyMs, statusCode: null };
    } finally {
      deadline.dispose();
    }
  }

  /** Closes every pooled connection (shutdown, tests). The probe stays usable afterwards. */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    this.dispatchers.clear();
    await Promise.all(agents.map((agent) => agent.destroy()));
  }

  private dispatcher(insecure: boolean, follow: boolean, guarded: boolean): Dispatcher {
    const key = `${insecure}:${follow}:${guarded}`;
    let dispatcher = this.dispatchers.get(key);
    if (!dispatcher) {
      const agent = this.agent(insecure, guarded);
      dispatcher = follow ? agent.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTS })) : agent;
      this.dispatchers.set(key, dispatcher);
    }
    return dispatcher;
  }

  /**
   * A guarded agent (draft probes below administrator) has its own pool: its connector looks
   * names up through the address guard and connects to the address it checked, for the target
   * and for every redirect; a literal is checked before connecting.
   */
  private agent(insecure: boolean, guarded: boolean): Agent {
    const agentKey = `${insecure}:${guarded}`;
    let agent = this.agents.get(agentKey);
    if (!agent) {
      // timeout 0: no connect time-out of undici's own; the run's deadline aborts instead.
      const connectBase = buildConnector({
        rejectUnauthorized: false,
        ca: this.settings.ca,
        timeout: 0,
        ...(guarded ? { lookup: guardedLookup } : {}),
      });
      const connect: buildConnector.connector = (options, callback) => {
        const literal = stripBrackets(options.hostname);
        if (guarded && isBlockedName(literal)) {
          callback(new BlockedAddressError(literal), null);
          return;
        }
        connectBase(options, (error, socket) => {
          if (error || !(socket instanceof TLSSocket)) {
            if (error) callback(error, null);
            else callback(null, socket);
            return;
          }
          const certificate = peerCertificateDates(socket);
          if (certificate) this.rememberCertificate(originKey(options.hostname, options.port), certificate);
          const rejection = verifyPeer(socket, insecure, stripBrackets(options.hostname));
          if (rejection) {
            socket.destroy();
            callback(rejection, null);
          } else {
            callback(null, socket);
          }
        });
      };
      agent = new Agent({ connect });
      this.agents.set(agentKey, agent);
    }
    return agent;
  }

  private rememberCertificate(key: string, certificate: CertificateDates): void {
    this.certificates.delete(key);
    if (this.certificates.size >= 10_000) {
      const oldest = this.certificates.keys().next();
      if (!oldest.done) this.certificates.delete(oldest.value);
    }
    this.certificates.set(key, certificate);
  }
}

function inRanges(status: number, ranges: StatusRanges): boolean {
  for (const [low, high] of ranges) if (status >= low && status <= high) return true;
  return false;
}

/** Reads at most `max` bytes of a body as UTF-8 text; stops the download there. */
export async function readCapped(
  body: Dispatcher.ResponseData['body'],
  max = MAX_BODY_BYTES,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= max) break; // leaving the loop destroys the stream and its connection
  }
  return Buffer.concat(chunks, Math.min(size, max)).toString('utf8');
}
