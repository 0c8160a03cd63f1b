import { HttpErrorResponse } from '@angular/common/http';
import type { ApiError } from '@monitor/contracts';

import { t } from '../i18n/i18n';

/** The one deadline every API call gets. */
export const API_DEADLINE_MS = 15_000;

/**
 * The only error an API call fails with.
 * `status` is the HTTP status code, or 0 when no response arrived (network failure or time-out);
 * `message` is ready to show to a person: the server's own `error` text verbatim, else one of ours
 * in the active language, worded when read: a call can fail before the catalogue has loaded.
 */
export class ApiCallError extends Error {
  override readonly name = 'ApiCallError';

  /**
   * For a 429 (or a 503) that carried a `Retry-After` header: how many seconds to wait before trying
   * again, rounded up; absent when there was no such header or it could not be read.
   */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly status: number,
    message: string | (() => string),
    options: { readonly retryAfterSeconds?: number } = {},
  ) {
    super(typeof message === 'string' ? message : undefined);
    if (typeof message === 'function') Object.defineProperty(this, 'message', { get: message });
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  static timeout(): ApiCallError {
    return new ApiCallError(0, () => t('common.error.timeout'));
  }

  static network(): ApiCallError {
    return new ApiCallError(0, () => t('common.error.network'));
  }

  /** Turns whatever a call failed with into an `ApiCallError`. */
  static from(failure: unknown): ApiCallError {
    if (failure instanceof ApiCallError) return failure;
    if (failure instanceof HttpErrorResponse) return fromHttpError(failure);
    if (isTimeout(failure)) return ApiCallError.timeout();
    return ApiCallError.network();
  }
}

function fromHttpError(response: HttpErrorResponse): ApiCallError {
  if (isTimeout(response.error)) return ApiCallError.timeout();
  if (response.status === 0) return ApiCallError.network();

  const options = { retryAfterSeconds: retryAfter(response.headers?.get('Retry-After') ?? null) };
  const serverText = errorText(response.error);
  if (serverText !== undefined) return new ApiCallError(response.status, serverText, options);
  if (response.ok || (response.status >= 200 && response.status < 300)) {
    return new ApiCallError(response.status, () => t('common.error.unreadable'));
  }
  return new ApiCallError(
    response.status,
    () => t('common.error.http', { status: response.status }),
    options,
  );
}

/** A `Retry-After` value (delay in seconds, or an HTTP date) as whole seconds from now. */
function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** The `error` text of an `ApiError` body, whether it arrived parsed or as raw text. */
function errorText(body: unknown): string | undefined {
  if (typeof body === 'string') {
    try {
      return errorText(JSON.parse(body) as unknown);
    } catch {
      return undefined;
    }
  }
  if (isApiError(body) && body.error.trim() !== '') return body.error;
  return undefined;
}

function isApiError(body: unknown): body is ApiError {
  return typeof body === 'object' && body !== null && typeof (body as Partial<ApiError>).error === 'string';
}

function isTimeout(failure: unknown): boolean {
  return (
    typeof failure === 'object' && failure !== null && (failure as { name?: unknown }).name === 'TimeoutError'
  );
}
