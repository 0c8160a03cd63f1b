/** The predefined global functions of text/template (all but `call`). */
import { formatValue, isInt, sprint, sprintf, sprintln, typeName } from './format';

/** An error returned by a builtin; the evaluator reports it as "error calling NAME: message". */
export class CallError extends Error {}

export interface Builtin {
  /** Fixed parameter count, or the minimum for variadic functions. */
  arity: number;
  variadic: boolean;
  fn: (args: unknown[]) => unknown;
}

type Kind = 'bool' | 'number' | 'string' | 'nil' | 'other';

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Byte-wise comparison of the UTF-8 encodings, which is code point order. */
function compareCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) ?? 0);
  const y = [...b].map((c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'string') return 'string';
  return 'other';
}

export function isTrue(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
  if (v instanceof Date || typeof v === 'function') return true;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** and/or: the first argument whose truth is `stop`, else the last. */
function decide(args: unknown[], stop: boolean): unknown {
  for (const a of args) if (isTrue(a) === stop) return a;
  return args[args.length - 1];
}

function eq(args: unknown[]): boolean {
  const [a, ...rest] = args;
  if (rest.length === 0) throw new CallError('missing argument for comparison');
  const k1 = kindOf(a);
  for (const b of rest) {
    const k2 = kindOf(b);
    let truth = false;
    if (k1 !== k2) {
      if (k1 !== 'nil' && k2 !== 'nil') throw new CallError('incompatible types for comparison');
    } else if (k1 === 'nil') truth = true;
    else if (k1 === 'other') {
      if (a instanceof Date && b instanceof Date) truth = a.getTime() === b.getTime();
      else throw new CallError(`non-comparable type ${formatValue(a)}: ${typeName(a)}`);
    } else truth = k1 === 'number' ? Number(a) === Number(b) : a === b;
    if (truth) return true;
  }
  return false;
}

function lt([a, b]: unknown[]): boolean {
  const k1 = kindOf(a);
  const k2 = kindOf(b);
  if (k1 === 'nil' || k1 === 'other' || k2 === 'nil' || k2 === 'other') {
    throw new CallError('invalid type for comparison');
  }
  if (k1 !== k2) throw new CallError('incompatible types for comparison');
  if (k1 === 'bool') throw new CallError('invalid type for comparison');
  if (k1 === 'string') return compareCodePoints(a as string, b as string) < 0;
  return Number(a) < Number(b);
}

function le(args: unknown[]): boolean {
  return lt(args) || eq(args);
}

function indexArg(index: unknown, length: number): number {
  if (index === null || index === undefined) throw new CallError('cannot index slice/array with nil');
  if (!isInt(index)) throw new CallError(`cannot index slice/array with type ${typeName(index)}`);
  const x = Number(index);
  if (x < 0 || x > length) throw new CallError(`index out of range: ${x}`);
  return x;
}

function index([item, ...indexes]: unknown[]): unknown {
  if (item === null || item === undefined) throw new CallError('index of untyped nil');
  let cur: unknown = item;
  for (const i of indexes) {
    if (cur === null || cur === undefined) throw new CallError('index of nil pointer');
    if (typeof cur === 'string' || Array.isArray(cur)) {
      const bytes = typeof cur === 'string' ? utf8(cur) : null;
      const len = bytes ? bytes.length : (cur as unknown[]).length;
      const x = indexArg(i, len);
      if (x === len) throw new CallError(`index out of range: ${x}`);
      cur = bytes ? bytes[x] : (cur as unknown[])[x];
    } else if (typeof cur === 'object' && !(cur instanceof Date)) {
      if (typeof i !== 'string') throw new CallError(`value has type ${typeName(i)}; should be string`);
      cur = Object.hasOwn(cur, i) ? (cur as Record<string, unknown>)[i] : null;
    } else throw new CallError(`can't index item of type ${typeName(cur)}`);
  }
  return cur;
}

function slice([item, ...indexes]: unknown[]): unknown {
  if (item === null || item === undefined) throw new CallError('slice of untyped nil');
  if (indexes.length > 3) throw new CallError(`too many slice indexes: ${indexes.length}`);
  if (typeof item === 'string' && indexes.length === 3) throw new CallError('cannot 3-index slice a string');
  if (typeof item !== 'string' && !Array.isArray(item)) {
    throw new CallError(`can't slice item of type ${typeName(item)}`);
  }
  const bytes = typeof item === 'string' ? utf8(item) : null;
  const len = bytes ? bytes.length : (item as unknown[]).length;
  const idx = [0, len, len];
  indexes.forEach((i, n) => (idx[n] = indexArg(i, len)));
  if (idx[0] > idx[1]) throw new CallError(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  if (indexes.length === 3 && idx[1] > idx[2])
    throw new CallError(`invalid slice index: ${idx[1]} > ${idx[2]}`);
  return bytes
    ? new TextDecoder().decode(bytes.subarray(idx[0], idx[1]))
    : (item as unknown[]).slice(idx[0], idx[1]);
}

function length([item]: unknown[]): number {
  if (item === null || item === undefined) throw new CallError('len of nil pointer');
  if (typeof item === 'string') return utf8(item).length;
  if (Array.isArray(item)) return item.length;
  if (typeof item === 'object' && !(item instanceof Date)) return Object.keys(item).length;
  throw new CallError(`len of type ${typeName(item)}`);
}

/** The evalArgs of html/js/urlquery: a lone string as is, else Sprint of everything. */
function text(args: unknown[]): string {
  return args.length === 1 && typeof args[0] === 'string' ? args[0] : sprint(args);
}

export function htmlEscape(s: string): string {
  const map: Record<string, string> = {
    '"': '&#34;',
    "'": '&#39;',
    '&': '&amp;',
    '<': '&lt;',
    '>': '&gt;',
    '\0': '\uFFFD',
  };
  return s.replace(/["'&<>\0]/g, (c) => map[c]);
}

export function jsEscape(s: string): string {
  const map: Record<string, string> = {
    '\\': '\\\\',
    "'": "\\'",
    '"': '\\"',
    '<': '\\u003C',
    '>': '\\u003E',
    '&': '\\u0026',
    '=': '\\u003D',
  };
  let out = '';
  for (const c of s) {
    const r = c.codePointAt(0) ?? 0;
    if (map[c]) out += map[c];
    else if (r < 0x20) out += '\\u00' + r.toString(16).toUpperCase().padStart(2, '0');
    else if (r >= 0x80 && (/[\p{C}\p{Z}]/u.test(c) || (r >= 0xd800 && r < 0xe000))) {
      out += '\\u' + r.toString(16).toUpperCase().padStart(4, '0');
    } else out += c;
  }
  return out;
}

/** url.QueryEscape */
export function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, '+');
}

const fixed = (arity: number, fn: (args: unknown[]) => unknown): Builtin => ({ arity, variadic: false, fn });
const variadic = (arity: number, fn: (args: unknown[]) => unknown): Builtin => ({
  arity,
  variadic: true,
  fn,
});

export const BUILTINS: Record<string, Builtin> = {
  // and/or short-circuit: the evaluator evaluates their arguments lazily instead of calling these.
  and: variadic(1, (args) => decide(args, false)),
  or: variadic(1, (args) => decide(args, true)),
  not: fixed(1, ([a]) => !isTrue(a)),
  len: fixed(1, length),
  index: variadic(1, index),
  slice: variadic(1, slice),
  print: variadic(0, sprint),
  println: variadic(0, sprintln),
  printf: variadic(1, ([format, ...rest]) => sprintf(format as string, rest)),
  html: variadic(0, (args) => htmlEscape(text(args))),
  js: variadic(0, (args) => jsEscape(text(args))),
  urlquery: variadic(0, (args) => queryEscape(text(args))),
  eq: variadic(1, eq),
  ne: fixed(2, (args) => !eq(args)),
  lt: fixed(2, lt),
  le: fixed(2, le),
  gt: fixed(2, (args) => !le(args)),
  ge: fixed(2, (args) => !lt(args)),
};

export const BUILTIN_NAMES: ReadonlySet<string> = new Set(Object.keys(BUILTINS));
