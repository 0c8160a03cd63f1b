import type { BodySpec } from './fuzz-inputs';
import type { Caller } from './fuzz-world';
import { expectNoCredentialHashes } from './secrets';

/** One request the fuzzer sent and what came back. */
export interface Exchange {
  operation: string;
  method: string;
  path: string;
  caller: Caller;
  body: BodySpec;
  /** Raw path parameters by name, as written into the path. */
  pathParams: Record<string, string>;
  /** The bytes sent (for the reproduction). */
  payload: string | undefined;
  contentType: string | null;
  status: number;
  responseType: string;
  responseText: string;
  attachment: boolean;
  /** The fetch failed (connection reset, time-out): its message. */
  transportError?: string;
  /** Connection attempts the network fence refused while this request ran. */
  outbound: string[];
}

export type Rule =
  | 'no-server-error'
  | 'error-is-{error}'
  | 'no-success-without-rights'
  | 'no-secret-in-answer'
  | 'invalid-unicode-refused'
  | 'no-outbound-traffic'
  | 'ids-are-decimal'
  | 'answer-arrives';

export interface Violation {
  rule: Rule;
  detail: string;
  /** What was special about the request or answer (matched by the known-defect list). */
  tags: string[];
}

export interface CheckContext {
  /** Minimum rank of the operation (0 public … 3 admin). */
  required: number;
  /** 5xx statuses the document allows for it (502, 503, 507 only; a 500 is never allowed). */
  allowed5xx: number[];
  /** Property names of the operation's request schema (values under them are stored text). */
  bodyFields: Set<string>;
  apiKeys: string[];
  plantedSecrets: string[];
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function depthOf(value: unknown): number {
  let depth = 0;
  let level: unknown[] = [value];
  while (level.length) {
    const next: unknown[] = [];
    for (const v of level) if (typeof v === 'object' && v !== null) next.push(...Object.values(v));
    if (next.length === 0) break;
    depth++;
    level = next;
  }
  return depth;
}

function stringsUnder(value: unknown, out: string[] = []): string[] {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'object' && v !== null) stack.push(...Object.keys(v), ...Object.values(v));
  }
  return out;
}

const badPercent = (text: string): boolean => {
  try {
    decodeURIComponent(text);
    return false;
  } catch {
    return true;
  }
};

/** Features of the request and answer the known-defect list may name. */
export function tagsOf(exchange: Exchange): string[] {
  const tags = new Set<string>();
  const [pathname, query = ''] = exchange.path.split('?');
  const segments = pathname.split('/');
  if (segments.some(badPercent)) tags.add('bad-percent-encoding');
  if (query.split(/[&=]/).some(badPercent)) tags.add('bad-percent-query');
  if (segments.some((s) => s.length > 100)) tags.add('over-long-param');
  if (exchange.path.length > 16 * 1024) tags.add('over-long-url');
  if (exchange.caller.name === 'oversized-headers') tags.add('oversized-headers');
  if (exchange.payload !== undefined && Buffer.byteLength(exchange.payload) > 1024 * 1024)
    tags.add('over-limit-body');
  if (exchange.body.kind === 'json') {
    if (depthOf(exchange.body.value) > 64) tags.add('deep-nesting');
    if (stringsUnder(exchange.body.value).some((s) => LONE_SURROGATE.test(s))) tags.add('lone-surrogate');
  }
  if (exchange.body.kind === 'raw') tags.add(`raw-body:${exchange.contentType ?? 'none'}`);
  if (/"(code|statusCode)"\s*:/.test(exchange.responseText)) tags.add('framework-body');
  return [...tags];
}

/** Strings with a lone surrogate that sit under a field of the request schema (stored text). */
function invalidTextInFields(body: BodySpec, fields: Set<string>): boolean {
  if (body.kind !== 'json' || typeof body.value !== 'object' || body.value === null) return false;
  return Object.entries(body.value).some(
    ([key, value]) => fields.has(key) && stringsUnder(value).some((s) => LONE_SURROGATE.test(s)),
  );
}

/** Every rule the fuzzer holds each answer to. */
export function violationsOf(exchange: Exchange, context: CheckContext): Violation[] {
  const tags = tagsOf(exchange);
  const found: Violation[] = [];
  const add = (rule: Rule, detail: string) => found.push({ rule, detail, tags });
  const { status, responseText } = exchange;
  const success = status >= 200 && status < 300;

  if (exchange.outbound.length) add('no-outbound-traffic', exchange.outbound.join('; '));
  if (exchange.transportError !== undefined) {
    add('answer-arrives', exchange.transportError);
    return found;
  }
  if (status >= 500 && !context.allowed5xx.includes(status)) add('no-server-error', `status ${status}`);
  if (status >= 400) {
    let shape: boolean;
    try {
      const parsed = JSON.parse(responseText) as unknown;
      shape =
        typeof parsed === 'object' &&
        parsed !== null &&
        !Array.isArray(parsed) &&
        Object.keys(parsed).join() === 'error' &&
        typeof (parsed as { error: unknown }).error === 'string';
    } catch {
      shape = false;
    }
    // The public status page's visitors are people with browsers: its 404 is an HTML page (issue 17).
    const htmlPage =
      exchange.operation === 'GET /status/{slug}' && exchange.responseType.startsWith('text/html');
    if (!htmlPage && (!shape || !exchange.responseType.includes('application/json')))
      add('error-is-{error}', `${exchange.responseType}: ${responseText.slice(0, 200)}`);
  }
  const writes = !['GET', 'HEAD', 'OPTIONS'].includes(exchange.method);
  const rank = exchange.caller.foreignOrigin && writes ? 0 : exchange.caller.rank;
  if (success && rank < context.required)
    add('no-success-without-rights', `${exchange.caller.name} needs rank ${context.required}, has ${rank}`);

  const keyAllowed =
    success &&
    rank === 3 &&
    (exchange.operation === 'GET /api/settings' || exchange.operation === 'POST /api/api-key');
  const backup = success && rank === 3 && exchange.attachment && exchange.operation === 'GET /api/backup';
  if (!backup) {
    const secrets = [...context.plantedSecrets, ...(keyAllowed ? [] : context.apiKeys)];
    const leaked = secrets.filter((s) => responseText.includes(s));
    if (leaked.length)
      add('no-secret-in-answer', `answer carries ${leaked.map((s) => `${s.slice(0, 6)}…`).join(', ')}`);
    try {
      expectNoCredentialHashes([responseText]);
    } catch {
      add('no-secret-in-answer', 'answer carries a credential hash or credential column name');
    }
  }
  const spelled = exchange.pathParams.id;
  if (success && spelled !== undefined && !/^\d+$/.test(spelled))
    add('ids-are-decimal', `path id "${spelled}" answered as if it were a number`);
  if (success && invalidTextInFields(exchange.body, context.bodyFields))
    add('invalid-unicode-refused', 'a string with a lone surrogate was accepted');
  return found;
}

/**
 * A JavaScript expression for `text` with long runs folded into `.repeat(n)` (a body nested
 * 2,000 levels deep or a megabyte-long name prints as one short line that rebuilds it exactly).
 */
export function compactLiteral(text: string): string {
  const parts: string[] = [];
  let literal = '';
  let i = 0;
  while (i < text.length) {
    let best = { unit: '', count: 0 };
    for (let width = 1; width <= 8; width++) {
      const unit = text.slice(i, i + width);
      let count = 1;
      while (text.startsWith(unit, i + count * width)) count++;
      if (count * width >= 40 && count * width > best.count * best.unit.length) best = { unit, count };
    }
    if (best.count) {
      if (literal) parts.push(JSON.stringify(literal));
      literal = '';
      parts.push(`${JSON.stringify(best.unit)}.repeat(${best.count})`);
      i += best.unit.length * best.count;
    } else literal += text[i++];
  }
  if (literal || parts.length === 0) parts.push(JSON.stringify(literal));
  return parts.join(' + ');
}

/** A request as a runnable command: what to paste to see the answer again. */
export function reproduction(exchange: Exchange, url: string): string {
  const headers = {
    ...exchange.caller.headers,
    ...(exchange.contentType ? { 'content-type': exchange.contentType } : {}),
  };
  const shown = Object.entries(headers).map(([k, v]) => [
    k,
    v.length > 200 ? `${v.slice(0, 20)}…(${v.length} chars)` : v,
  ]);
  const payload = exchange.payload;
  const literal = payload === undefined ? '' : compactLiteral(payload);
  const body =
    payload === undefined
      ? ''
      : literal.length <= 4000
        ? `, body: ${literal}`
        : `, body: /* ${payload.length} chars, starts */ ${JSON.stringify(payload.slice(0, 300))}`;
  return [
    `${exchange.method} ${exchange.path} as ${exchange.caller.name} -> ${exchange.transportError ?? exchange.status}`,
    `  fetch(${JSON.stringify(url + exchange.path)}, { method: ${JSON.stringify(exchange.method)}, headers: ${JSON.stringify(Object.fromEntries(shown))}${body} })`,
    `  answer: ${exchange.responseText.slice(0, 300)}`,
  ].join('\n');
}
