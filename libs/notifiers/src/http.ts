import { request } from 'undici';
import { DeliveryError } from './notifier';

/** A value to remove from every error message, and what to write instead. */
export interface Secret {
  value: string | undefined;
  mask: string;
}

export interface HttpDelivery {
  /** Names the other side in error messages, e.g. "the Bot API". */
  service: string;
  method: 'POST' | 'PUT' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  body: string | Buffer;
  signal: AbortSignal;
  /** Values that must never appear in an error message (tokens, secret URLs). */
  secrets: Secret[];
  /** Extracts a short reason from an error answer's body; the default takes the text itself. */
  reason?: (body: string) => string | undefined;
}

/** How much of an answer is read: enough for an error description, never a whole page. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** How much of the reason goes into the error message. */
const MAX_REASON_CHARS = 200;

/**
 * Sends one request with undici and resolves with the answer's status and text when it is 2xx.
 * Anything else throws a DeliveryError whose message has every secret replaced by its mask:
 * 429 and 5xx are retryable, other statuses are not, network errors and time-outs are.
 * Redirects are not followed: a channel sends to the address it is configured with and nowhere else.
 */
export async function deliverHttp(delivery: HttpDelivery): Promise<{ status: number; body: string }> {
  const scrub = (text: string): string => scrubSecrets(text, delivery.secrets);
  if (delivery.signal.aborted) throw aborted(delivery.service);
  let url: URL;
  try {
    url = new URL(delivery.url);
  } catch {
    throw new DeliveryError(`the address of ${delivery.service} is not a valid URL`, {
      status: null,
      retryable: false,
    });
  }
  let status: number;
  let text: string;
  try {
    const answer = await request(url, {
      method: delivery.method,
      headers: delivery.headers,
      body: delivery.body,
      signal: delivery.signal,
    });
    status = answer.statusCode;
    text = await readLimited(answer.body, MAX_ANSWER_BYTES);
  } catch (error) {
    if (delivery.signal.aborted) throw aborted(delivery.service);
    throw new DeliveryError(scrub(`could not reach ${delivery.service}: ${describe(error)}`), {
      status: null,
      retryable: true,
    });
  }
  if (status >= 200 && status < 300) return { status, body: text };
  // Scrubbed before it is cut, so a secret never survives half-masked at the cut.
  const reason = oneLine(scrub((delivery.reason ?? defaultReason)(text) ?? ''));
  const message = `${delivery.service} answered HTTP ${status}${reason ? `: ${reason}` : ''}`;
  throw new DeliveryError(scrub(message), { status, retryable: status === 429 || status >= 500 });
}

/** Replaces every occurrence of each secret (raw, URL-encoded, and a secret URL's path) by its mask. */
export function scrubSecrets(text: string, secrets: readonly Secret[]): string {
  const pairs: { needle: string; mask: string }[] = [];
  for (const { value, mask } of secrets) {
    if (value === undefined || value === '') continue;
    pairs.push({ needle: value, mask });
    const encoded = encodeURIComponent(value);
    if (encoded !== value) pairs.push({ needle: encoded, mask });
    try {
      const url = new URL(value);
      const rest = `${url.pathname}${url.search}`;
      if (rest.length > 1) pairs.push({ needle: rest, mask });
    } catch {
      // not an address: the raw and encoded forms are enough
    }
  }
  // Longest first, so a secret URL is masked whole before its path is.
  pairs.sort((a, b) => b.needle.length - a.needle.length);
  let result = text;
  for (const { needle, mask } of pairs) result = result.split(needle).join(mask);
  return result;
}

function aborted(service: string): DeliveryError {
  return new DeliveryError(`${service} did not answer before the attempt's time limit`, {
    status: null,
    retryable: true,
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code;
    const cause = (error as Error & { cause?: unknown }).cause;
    const detail = error.message || (typeof code === 'string' ? code : error.name);
    if (cause instanceof Error && cause.message && !detail.includes(cause.message)) {
      return `${detail} (${cause.message})`;
    }
    return detail;
  }
  return String(error);
}

function defaultReason(body: string): string | undefined {
  return body;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_REASON_CHARS ? `${line.slice(0, MAX_REASON_CHARS - 1)}…` : line;
}

/** Reads at most `limit` bytes of a body, then drops the rest. */
async function readLimited(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  limit: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/** A reason taken from a JSON answer's field (e.g. `description`), else the raw text. */
export function jsonReason(...fields: string[]): (body: string) => string | undefined {
  return (body) => {
    try {
      const parsed: unknown = JSON.parse(body);
      if (parsed && typeof parsed === 'object') {
        for (const field of fields) {
          const value = (parsed as Record<string, unknown>)[field];
          if (typeof value === 'string' && value !== '') return value;
        }
      }
    } catch {
      // not JSON: fall through to the text
    }
    return body;
  };
}
