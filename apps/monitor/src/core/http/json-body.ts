import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Deepest nesting of arrays and objects a JSON body may have; no API body comes near it. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]);
const CLOSE = new Set([0x5d, 0x7d]);

/**
 * Whether JSON text nests arrays/objects deeper than `limit`, found by one pass over the text
 * (brackets inside strings skipped), so nothing recursive ever sees a hostile body. Malformed text
 * is left to JSON.parse.
 */
export function jsonNestingExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPEN.has(c)) {
      if (++depth > limit) return true;
    } else if (CLOSE.has(c)) depth--;
  }
  return false;
}

/**
 * The first string in `value` (a value or an object key) that is not well-formed Unicode (a lone
 * UTF-16 surrogate, which storage would turn into U+FFFD) or holds a NUL character (which
 * PostgreSQL's text cannot store), as a sentence naming where it is; else null. Walks with its own
 * stack, so any depth is safe.
 */
export function illFormedTextIn(value: unknown, root = ''): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [item, path] = stack.pop() as [unknown, string];
    if (typeof item === 'string') {
      if (!item.isWellFormed()) return `"${path || 'body'}" is not valid Unicode text (lone surrogate)`;
      if (item.includes('\u0000')) return `"${path || 'body'}" contains a NUL character`;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], join(path, String(i))]);
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item);
      for (const [key] of entries) {
        if (!key.isWellFormed())
          return `a field name ${path ? `inside "${path}"` : 'in the body'} is not valid Unicode text (lone surrogate)`;
        if (key.includes('\u0000'))
          return `a field name ${path ? `inside "${path}"` : 'in the body'} contains a NUL character`;
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i][1], join(path, entries[i][0])]);
    }
  }
  return null;
}

const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

const badRequest = (message: string): Error => Object.assign(new Error(message), { statusCode: 400 });

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The one JSON body parser: refuses bytes that are not UTF-8, nesting deeper than MAX_JSON_DEPTH
 * (before JSON.parse or anything recursive runs) and strings that are not well-formed Unicode,
 * each with 400 naming the problem; the rest is Fastify's own parser (prototype poisoning refused).
 * Register before app.init() with Nest's body parser turned off.
 */
export function registerJsonBody(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      done(badRequest('request body is not valid UTF-8'), undefined);
      return;
    }
    if (jsonNestingExceeds(text)) {
      done(badRequest(`JSON body nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    void parseJson(request, text, (error: Error | null, parsed?: unknown) => {
      if (error) return done(error, undefined);
      const problem = illFormedTextIn(parsed);
      done(problem ? badRequest(problem) : null, problem ? undefined : parsed);
    });
  });
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      const parsed = Object.fromEntries(new URLSearchParams(body as string));
      const problem = illFormedTextIn(parsed);
      done(problem ? badRequest(problem) : null, problem ? undefined : parsed);
    },
  );
  // Query strings and path parameters are decoded from UTF-8 by the router, which cannot produce
  // a lone surrogate today; checked anyway so a future decoder cannot store one silently.
  fastify.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    const problem = illFormedTextIn(request.query) ?? illFormedTextIn(request.params);
    done(problem ? badRequest(problem) : undefined);
  });
}
