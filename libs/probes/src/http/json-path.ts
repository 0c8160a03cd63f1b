import { JSONPath } from 'jsonpath-plus';

/**
 * JSONPath for the http probe's JSON check: a strict parser of the common subset (RFC 9535's
 * names, indexes, wildcards, slices, unions and descendants; no filters or scripts), whose result
 * jsonpath-plus evaluates with evaluation of code disabled. jsonpath-plus alone accepts almost any
 * text (`$[` reads as `$`), so saving a typo would pass; this parser names the mistake instead.
 */

/** A parsed expression: the path array handed to jsonpath-plus. */
export type JsonPathTokens = readonly string[];

export class JsonPathSyntaxError extends Error {
  override readonly name = 'JsonPathSyntaxError';
}

const NAME = /^[\p{L}_][\p{L}\p{N}_-]*/u;
const INTEGER = /^-?\d+/;

/** Parses `expression`, throwing a JsonPathSyntaxError that says what is wrong and where. */
export function parseJsonPath(expression: string): JsonPathTokens {
  const text = expression.trim();
  if (!text.startsWith('$')) throw new JsonPathSyntaxError('it must start with $');
  const tokens: string[] = ['$'];
  let at = 1;
  while (at < text.length) {
    if (text.startsWith('..', at)) {
      at += 2;
      tokens.push('..');
      if (text[at] === '[') continue;
      at = dotMember(text, at, tokens);
    } else if (text[at] === '.') {
      at = dotMember(text, at + 1, tokens);
    } else if (text[at] === '[') {
      at = bracket(text, at + 1, tokens);
    } else {
      failAt(`unexpected ${JSON.stringify(text[at])}`, at);
    }
  }
  return tokens;
}

function dotMember(text: string, at: number, tokens: string[]): number {
  if (text[at] === '*') {
    tokens.push('*');
    return at + 1;
  }
  const name = NAME.exec(text.slice(at))?.[0];
  if (name === undefined) return failAt('a member name or * is missing', at);
  tokens.push(literal(name));
  return at + name.length;
}

type Selector =
  { kind: 'name'; value: string } | { kind: 'index'; value: number } | { kind: 'other'; value: string };

function bracket(text: string, start: number, tokens: string[]): number {
  let at = start;
  const selectors: Selector[] = [];
  const space = () => {
    while (text[at] === ' ') at++;
  };
  for (;;) {
    space();
    const char = text[at];
    if (char === undefined) return failAt('a closing ] is missing', at);
    if (char === '?' || char === '(') {
      return failAt('filter and script expressions ([?(…)], [(…)]) are not supported', at);
    }
    if (char === "'" || char === '"') {
      const end = closingQuote(text, at);
      if (end < 0) return failAt('a closing quote is missing', at);
      const raw = text.slice(at + 1, end);
      const value = char === '"' ? jsonString(raw, at) : raw.replace(/\\(['\\])/g, '$1');
      selectors.push({ kind: 'name', value });
      at = end + 1;
    } else if (char === '*') {
      selectors.push({ kind: 'other', value: '*' });
      at++;
    } else {
      const slice = /^(-?\d+)?\s*:\s*(-?\d+)?(?:\s*:\s*(\d+)?)?/.exec(text.slice(at));
      const integer = INTEGER.exec(text.slice(at));
      if (slice && slice[0].includes(':')) {
        if (slice[3] === '0') return failAt('a slice step must not be 0', at);
        selectors.push({ kind: 'other', value: `${slice[1] ?? ''}:${slice[2] ?? ''}:${slice[3] ?? ''}` });
        at += slice[0].length;
      } else if (integer) {
        selectors.push({ kind: 'index', value: Number(integer[0]) });
        at += integer[0].length;
      } else {
        return failAt('expected a quoted name, an index, a slice or *', at);
      }
    }
    space();
    if (text[at] === ',') {
      at++;
      continue;
    }
    if (text[at] === ']') break;
    return failAt(
      text[at] === undefined ? 'a closing ] is missing' : `unexpected ${JSON.stringify(text[at])}`,
      at,
    );
  }
  tokens.push(selectorToken(selectors, start - 1));
  return at + 1;
}

function selectorToken(selectors: Selector[], at: number): string {
  if (selectors.length === 1) {
    const [only] = selectors as [Selector];
    if (only.kind === 'name') return literal(only.value);
    if (only.kind === 'index') return only.value >= 0 ? String(only.value) : lastFrom(only.value);
    return only.value;
  }
  // jsonpath-plus splits a union at its commas, so only plain names and indexes survive in one.
  const parts = selectors.map((selector) =>
    (selector.kind === 'name' &&
      NAME.test(selector.value) &&
      NAME.exec(selector.value)?.[0] === selector.value) ||
    (selector.kind === 'index' && selector.value >= 0)
      ? String(selector.value)
      : null,
  );
  if (parts.some((part) => part === null)) {
    return failAt('a union ([a,b]) may only list plain names and indexes from 0', at);
  }
  return parts.join(',');
}

function failAt(what: string, at: number): never {
  throw new JsonPathSyntaxError(`${what} at character ${at + 1}`);
}

/** A negative index as the one-element slice jsonpath-plus understands. */
function lastFrom(index: number): string {
  return index === -1 ? '-1:' : `${index}:${index + 1}`;
}

/** jsonpath-plus reads a name starting with a backtick literally ($, @, ~, * and , lose their meaning). */
function literal(name: string): string {
  return `\`${name}`;
}

function jsonString(raw: string, at: number): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return failAt('a quoted name has an invalid escape', at);
  }
}

function closingQuote(text: string, open: number): number {
  const quote = text[open];
  for (let at = open + 1; at < text.length; at++) {
    if (text[at] === '\\') at++;
    else if (text[at] === quote) return at;
  }
  return -1;
}

/** Every value the path selects in `json`, in document order. */
export function evaluateJsonPath(tokens: JsonPathTokens, json: unknown): unknown[] {
  // Wrapped, because jsonpath-plus takes a null document for a missing one.
  const path = ['$', literal('root'), ...tokens.slice(1)];
  const found: unknown = JSONPath({ path, json: { root: json }, eval: false, wrap: true });
  return Array.isArray(found) ? found : [];
}
