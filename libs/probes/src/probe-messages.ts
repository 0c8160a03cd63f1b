import type { TLSSocket } from 'node:tls';
import { BLOCKED_ADDRESS_CODE, BLOCKED_ADDRESS_MESSAGE } from './address-guard';

/**
 * Shared wording of probe messages, the deadline every run obeys, and the certificate checks that
 * http and tcp share. Messages are what users read: short, lower case, and never a secret.
 */

/** `10 s`, `1.5 s`. */
export function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Calendar date in UTC, `2025-03-01`. */
export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function timedOutMessage(timeoutMs: number): string {
  return `timed out after ${formatSeconds(timeoutMs)}`;
}

export const CANCELLED_MESSAGE = 'probe cancelled';

/** Rounds a latency to 0.01 ms: enough for a loopback peer, no spurious digits. */
export function elapsedMs(startedAt: number): number {
  return Math.round((performance.now() - startedAt) * 100) / 100;
}

/**
 * The hard limit of one run: aborts `signal` when `timeoutMs` has passed or the caller's signal
 * aborts, whichever is first. Always `dispose()` it (in a finally) to clear the timer.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onParentAbort = (): void => this.abort(false);
  private expired = false;
  readonly signal: AbortSignal = this.controller.signal;

  constructor(
    readonly timeoutMs: number,
    private readonly parent: AbortSignal,
  ) {
    this.timer = setTimeout(() => this.abort(true), Math.max(0, timeoutMs));
    if (parent.aborted) this.abort(isTimeoutReason(parent.reason));
    else parent.addEventListener('abort', this.onParentAbort, { once: true });
  }

  get aborted(): boolean {
    return this.signal.aborted;
  }

  /** The message for a run that the deadline (or the caller) stopped. */
  get message(): string {
    return this.expired ? timedOutMessage(this.timeoutMs) : CANCELLED_MESSAGE;
  }

  /** Settles with `work`, or rejects with the abort reason as soon as the deadline passes. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(this.signal.reason as Error);
      this.signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (value) => {
          this.signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          this.signal.removeEventListener('abort', onAbort);
          reject(error as Error);
        },
      );
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.parent.removeEventListener('abort', this.onParentAbort);
  }

  private abort(expired: boolean): void {
    if (this.controller.signal.aborted) return;
    this.expired = expired || isTimeoutReason(this.parent.reason);
    clearTimeout(this.timer);
    const reason = new Error(this.expired ? 'deadline passed' : 'probe cancelled');
    reason.name = this.expired ? 'TimeoutError' : 'AbortError';
    this.controller.abort(reason);
  }
}

function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError';
}

/** The `code` of an error or of the error that caused it (undici and Node wrap errors). */
export function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    if (typeof current !== 'object') return undefined;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Codes Node's TLS layer reports when the chain ends at an authority nobody trusts. */
const UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** An error raised by our own verification of a TLS peer: carries the certificate's dates. */
export class CertificateError extends Error {
  constructor(
    readonly code: string,
    readonly host: string,
    readonly certificate: CertificateDates | null,
  ) {
    super(code);
    this.name = 'CertificateError';
  }
}

export interface CertificateDates {
  validFrom: Date;
  validTo: Date;
}

function certificateErrorMessage(code: string, host: string, certificate: CertificateDates | null): string {
  if (UNKNOWN_AUTHORITY.has(code)) return 'certificate signed by unknown authority';
  if (code === 'CERT_HAS_EXPIRED') {
    return certificate ? `certificate expired on ${formatDate(certificate.validTo)}` : 'certificate expired';
  }
  if (code === 'CERT_NOT_YET_VALID') {
    return certificate
      ? `certificate not valid before ${formatDate(certificate.validFrom)}`
      : 'certificate not yet valid';
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `certificate is not valid for ${host}`;
  if (code === 'CERT_REVOKED') return 'certificate revoked';
  return `certificate rejected (${code})`;
}

/**
 * Turns any failure of a network probe into one short sentence. `host` is the name the probe
 * resolved (never a URL, which may carry credentials).
 */
export function networkErrorMessage(error: unknown, host: string): string {
  if (error instanceof CertificateError)
    return certificateErrorMessage(error.code, error.host, error.certificate);
  const code = errorCode(error);
  switch (code) {
    case BLOCKED_ADDRESS_CODE:
      return BLOCKED_ADDRESS_MESSAGE;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
    case 'EAI_NODATA':
    case 'EAI_FAIL':
      return `cannot resolve host ${host}`;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by peer';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'EADDRNOTAVAIL':
      return 'address not available';
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return 'connection closed unexpectedly';
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_STATUS':
    case 'HPE_INVALID_HEADER_TOKEN':
      return 'invalid HTTP response';
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
    case 'EPROTO':
      return 'TLS handshake failed';
    case undefined:
      break;
    default:
      if (UNKNOWN_AUTHORITY.has(code) || code.startsWith('CERT_') || code.startsWith('ERR_TLS_CERT')) {
        return certificateErrorMessage(code, host, null);
      }
      return code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')
        ? `TLS error (${code})`
        : `error ${code}`;
  }
  // Duck-typed: errors from Node's core are not `instanceof Error` inside a jest sandbox.
  const message = (error as { message?: unknown } | null)?.message;
  const text = typeof message === 'string' ? message : String(error);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** The validity dates of the peer's leaf certificate, or null when it sent none. */
export function peerCertificateDates(socket: TLSSocket): CertificateDates | null {
  const certificate = socket.getPeerCertificate(false);
  if (!certificate || !certificate.valid_to) return null;
  const validFrom = new Date(certificate.valid_from);
  const validTo = new Date(certificate.valid_to);
  return Number.isNaN(validTo.getTime()) ? null : { validFrom, validTo };
}

/**
 * Our own decision on a TLS peer that Node verified with `rejectUnauthorized: false` (so we still
 * hold the certificate when it is rejected and can name its dates): null when acceptable.
 * Node's verification includes chain, dates and host name; `insecure` accepts any of it.
 */
export function verifyPeer(socket: TLSSocket, insecure: boolean, host: string): CertificateError | null {
  if (insecure || socket.authorized) return null;
  const code = String(socket.authorizationError ?? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  return new CertificateError(code, host, peerCertificateDates(socket));
}

const DAY_MS = 86_400_000;

/** Whole days until the certificate expires (negative once it has). */
export function daysLeft(certificate: CertificateDates, now = Date.now()): number {
  return Math.floor((certificate.validTo.getTime() - now) / DAY_MS);
}

/**
 * The failure a certificate causes under `cert_warn_days` (0 disables the warning), or null.
 * An expired certificate fails here too: that matters when verification was skipped.
 */
export function certificateExpiryProblem(certificate: CertificateDates, warnDays: number): string | null {
  if (certificate.validTo.getTime() <= Date.now()) {
    return warnDays > 0 ? `certificate expired on ${formatDate(certificate.validTo)}` : null;
  }
  if (warnDays > 0 && certificate.validTo.getTime() - Date.now() <= warnDays * DAY_MS) {
    return expiresInMessage(certificate);
  }
  return null;
}

export function expiresInMessage(certificate: CertificateDates): string {
  const days = daysLeft(certificate);
  return `certificate expires in ${days} day${days === 1 ? '' : 's'} (${formatDate(certificate.validTo)})`;
}

/*
 * Strict checks for `validate`: each returns null or one sentence naming the field. Absent options
 * are always fine (they take their defaults at run time).
 */
type Draft = Readonly<Record<string, unknown>>;

/** Options every type accepts, besides its own. */
export const COMMON_OPTIONS = ['timeout'] as const;

export function checkKnownOptions(type: string, options: Draft, known: readonly string[]): string | null {
  for (const name of Object.keys(options)) {
    if (!known.includes(name) && !(COMMON_OPTIONS as readonly string[]).includes(name)) {
      return `options.${name} is not an option of ${type} sensors`;
    }
  }
  return null;
}

export function checkBoolean(options: Draft, name: string): string | null {
  const value = options[name];
  return value === undefined || typeof value === 'boolean' ? null : `options.${name} must be true or false`;
}

export function checkInteger(options: Draft, name: string, min: number, max: number): string | null {
  const value = options[name];
  if (value === undefined) return null;
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
    ? null
    : `options.${name} must be a whole number from ${min} to ${max}`;
}

export function checkNumber(options: Draft, name: string): string | null {
  const value = options[name];
  if (value === undefined) return null;
  return typeof value === 'number' && Number.isFinite(value) ? null : `options.${name} must be a number`;
}

export function checkString(options: Draft, name: string, maxLength = 1024): string | null {
  const value = options[name];
  if (value === undefined) return null;
  if (typeof value !== 'string') return `options.${name} must be a string`;
  return value.length <= maxLength ? null : `options.${name} must be at most ${maxLength} characters`;
}

/** The timeout every type accepts: whole seconds from 1 to 86400 (the interval caps it at run time). */
export function checkTimeout(options: Draft): string | null {
  return checkInteger(options, 'timeout', 1, 86400);
}

/** First non-null result, so `validate` reads as a list of checks. */
export function firstProblem(...checks: Array<() => string | null>): string | null {
  for (const check of checks) {
    const problem = check();
    if (problem !== null) return problem;
  }
  return null;
}

/** Quotes user text in a message, shortened so one long keyword cannot swamp it. */
export function quote(text: string, max = 60): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max - 3)}...` : text);
}

/** True when a draft sets the option to something other than nothing ('' and {} are nothing). */
export function optionSet(options: Readonly<Record<string, unknown>>, name: string): boolean {
  const value = options[name];
  if (value === undefined || value === null || value === '' || value === false) return false;
  return !(typeof value === 'object' && Object.keys(value).length === 0);
}

/** The refusal of a draft option to a caller below administrator. */
export function adminOnlyOption(name: string, why: string): string {
  return `options.${name} ${why} in a draft probe only for administrators`;
}

/** The first of `names` a draft sets, refused to a caller below administrator; null when none. */
export function adminOnlyOptions(
  options: Readonly<Record<string, unknown>>,
  names: readonly string[],
  why = 'is allowed',
): string | null {
  const name = names.find((candidate) => optionSet(options, candidate));
  return name === undefined ? null : adminOnlyOption(name, why);
}
