/** Go's fmt package, the parts templates reach: %v default formatting, Sprint, Sprintln, Sprintf. */
import { fail } from './errors';

const MAX_DEPTH = 32;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** The Go type a JS value stands for; integral numbers are ints, others float64, objects maps. */
export function typeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (v instanceof Date) return 'time.Time';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) ? 'int' : 'float64';
    case 'bigint':
      return 'int';
    case 'boolean':
      return 'bool';
    case 'function':
      return 'func()';
    case 'object':
      return 'map[string]interface {}';
    case 'symbol':
    case 'undefined':
      break;
  }
  return typeof v;
}

export function isInt(v: unknown): v is number | bigint {
  return (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
}

/** Shortest decimal digits and exponent of a finite non-zero float: 1234.5 → ["12345", 3]. */
function shortestDigits(f: number): [string, number] {
  const [mant, exp] = Math.abs(f).toExponential().split('e');
  return [mant.replace('.', ''), Number(exp)];
}

function expSuffix(exp: number): string {
  const a = Math.abs(exp);
  return `e${exp < 0 ? '-' : '+'}${a < 10 ? '0' : ''}${a}`;
}

function special(f: number): string | null {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  return null;
}

/** strconv.FormatFloat(f, 'g', prec, 64); prec -1 is shortest. */
export function formatFloatG(f: number, prec = -1): string {
  const sp = special(f);
  if (sp) return sp;
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const value = prec < 0 ? f : Number(f.toPrecision(Math.max(prec, 1)));
  const [digits, exp] = shortestDigits(value);
  let eprec = prec < 0 ? 6 : Math.max(prec, 1);
  if (prec >= 0 && eprec > digits.length && digits.length >= exp + 1) eprec = digits.length;
  const sign = value < 0 ? '-' : '';
  if (exp < -4 || exp >= eprec) {
    return `${sign}${digits[0]}${digits.length > 1 ? '.' + digits.slice(1) : ''}${expSuffix(exp)}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

function formatFloatE(f: number, prec: number): string {
  const sp = special(f);
  if (sp) return sp;
  const [mant, exp] = f.toExponential(prec).split('e');
  return mant + expSuffix(Number(exp));
}

function formatFloatF(f: number, prec: number): string {
  const sp = special(f);
  if (sp) return sp;
  if (Math.abs(f) >= 1e21) return BigInt(Math.round(f)).toString() + (prec > 0 ? '.' + '0'.repeat(prec) : '');
  const rounded = f.toFixed(prec);
  // toFixed rounds exact ties away from zero; Go rounds them to even (2.25 → "2.2").
  const [int, frac = ''] = Math.abs(f)
    .toFixed(Math.min(100, prec + 40))
    .split('.');
  if (frac[prec] !== '5' || !/^0*$/.test(frac.slice(prec + 1))) return rounded;
  const kept = int + frac.slice(0, prec);
  if (Number(kept[kept.length - 1]) % 2 === 1) return rounded;
  return (f < 0 ? '-' : '') + int + (prec > 0 ? '.' + frac.slice(0, prec) : '');
}

/** time.Time.String() in UTC: 2006-01-02 15:04:05.999999999 +0000 UTC */
function formatDate(d: Date): string {
  if (Number.isNaN(d.getTime())) return 'Invalid Date';
  const iso = d.toISOString();
  const frac = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? '.' + frac : ''} +0000 UTC`;
}

/** Go's %v. */
export function formatValue(v: unknown, depth = 0): string {
  return formatVerb(v, 'v', {}, depth);
}

const isPrintable = (c: string): boolean => c === ' ' || !/[\p{C}\p{Z}]/u.test(c);

/** strconv.Quote (ascii: QuoteToASCII). */
export function quote(s: string, ascii = false, q = '"'): string {
  let out = q;
  for (const ch of s) {
    let r = ch.codePointAt(0) ?? 0;
    if (ch === q || ch === '\\') {
      out += '\\' + ch;
      continue;
    }
    if (ascii ? r < 0x80 && isPrintable(ch) : isPrintable(ch) && !(r >= 0xd800 && r < 0xe000)) {
      out += ch;
      continue;
    }
    const esc: Record<number, string> = {
      7: '\\a',
      8: '\\b',
      12: '\\f',
      10: '\\n',
      13: '\\r',
      9: '\\t',
      11: '\\v',
    };
    if (esc[r]) out += esc[r];
    else if (r < 0x20 || r === 0x7f) out += '\\x' + r.toString(16).padStart(2, '0');
    else {
      if (r >= 0xd800 && r < 0xe000) r = 0xfffd;
      out += r < 0x10000 ? '\\u' + r.toString(16).padStart(4, '0') : '\\U' + r.toString(16).padStart(8, '0');
    }
  }
  return out + q;
}

interface Flags {
  minus?: boolean;
  plus?: boolean;
  sharp?: boolean;
  space?: boolean;
  zero?: boolean;
  width?: number;
  prec?: number;
}

function pad(s: string, f: Flags, numeric: boolean): string {
  const len = [...s].length;
  if (f.width === undefined || len >= f.width) return s;
  const n = f.width - len;
  if (f.minus) return s + ' '.repeat(n);
  if (f.zero && numeric) {
    const sign = /^[+-]/.test(s) ? s[0] : '';
    return sign + '0'.repeat(n) + s.slice(sign.length);
  }
  return ' '.repeat(n) + s;
}

function badVerb(verb: string, v: unknown): string {
  if (v === null || v === undefined) return `%!${verb}(<nil>)`;
  return `%!${verb}(${typeName(v)}=${formatValue(v)})`;
}

function formatInt(v: number | bigint, verb: string, f: Flags): string | null {
  const big = BigInt(v);
  const neg = big < 0n;
  const abs = neg ? -big : big;
  let body: string;
  switch (verb) {
    case 'd':
    case 'v':
      body = abs.toString();
      break;
    case 'x':
    case 'X':
      body = abs.toString(16);
      if (verb === 'X') body = body.toUpperCase();
      if (f.sharp) body = (verb === 'x' ? '0x' : '0X') + body;
      break;
    case 'o':
      body = (f.sharp ? '0' : '') + abs.toString(8);
      break;
    case 'b':
      body = abs.toString(2);
      break;
    case 'c':
      return pad(String.fromCodePoint(Number(abs)), f, false);
    case 'q':
      return pad(quote(String.fromCodePoint(Number(abs)), f.plus, "'"), f, false);
    case 'U':
      return pad('U+' + abs.toString(16).toUpperCase().padStart(4, '0'), f, false);
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
      return formatFloat(Number(v), verb, f);
    default:
      return null;
  }
  if (f.prec !== undefined) body = body.padStart(f.prec, '0');
  const sign = neg ? '-' : f.plus ? '+' : f.space ? ' ' : '';
  return pad(sign + body, f.prec === undefined ? f : { ...f, zero: false }, true);
}

function formatFloat(v: number, verb: string, f: Flags): string | null {
  let s: string;
  switch (verb) {
    case 'v':
    case 'g':
    case 'G':
      s = formatFloatG(v, f.prec ?? -1);
      break;
    case 'e':
    case 'E':
      s = formatFloatE(v, f.prec ?? 6);
      break;
    case 'f':
    case 'F':
      s = formatFloatF(v, f.prec ?? 6);
      break;
    default:
      return null;
  }
  if (verb === 'E' || verb === 'G') s = s.toUpperCase();
  if (f.plus && !s.startsWith('-') && !s.startsWith('+')) s = '+' + s;
  else if (f.space && !/^[+-]/.test(s)) s = ' ' + s;
  return pad(s, f, Number.isFinite(v));
}

function formatString(s: string, verb: string, f: Flags): string | null {
  const truncated = f.prec === undefined ? s : [...s].slice(0, f.prec).join('');
  switch (verb) {
    case 'v':
    case 's':
      return pad(truncated, f, false);
    case 'q':
      if (f.sharp && !/[`\p{C}]/u.test(truncated.replace(/\t/g, '')))
        return pad('`' + truncated + '`', f, false);
      return pad(quote(truncated, f.plus), f, false);
    case 'x':
    case 'X': {
      let hex = [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, '0')).join('');
      if (f.prec !== undefined) hex = hex.slice(0, f.prec * 2);
      return pad(verb === 'X' ? hex.toUpperCase() : hex, f, false);
    }
    default:
      return null;
  }
}

/** Formats one operand for a verb, as fmt's printArg does (recursing into slices and maps). */
export function formatVerb(v: unknown, verb: string, f: Flags, depth = 0): string {
  if (depth > MAX_DEPTH) fail('value nested too deeply to print');
  if (v === null || v === undefined) return verb === 'v' ? pad('<nil>', f, false) : badVerb(verb, v);
  if (Array.isArray(v)) return '[' + v.map((e) => formatVerb(e, verb, f, depth + 1)).join(' ') + ']';
  if (v instanceof Date)
    return verb === 'v' || verb === 's' ? pad(formatDate(v), f, false) : badVerb(verb, v);
  let out: string | null = null;
  if (typeof v === 'string') out = formatString(v, verb, f);
  else if (isInt(v)) out = formatInt(v, verb, f);
  else if (typeof v === 'number') out = formatFloat(v, verb, f);
  else if (typeof v === 'boolean') out = verb === 'v' || verb === 't' ? pad(String(v), f, false) : null;
  else if (typeof v === 'function') out = verb === 'v' ? 'func()' : null;
  else if (isPlainObject(v)) {
    const keys = Object.keys(v).sort();
    return (
      'map[' +
      keys
        .map((k) => `${formatVerb(k, verb, f, depth + 1)}:${formatVerb(v[k], verb, f, depth + 1)}`)
        .join(' ') +
      ']'
    );
  }
  return out ?? badVerb(verb, v);
}

/** fmt.Sprint: spaces between operands when neither side is a string. */
export function sprint(args: unknown[]): string {
  let out = '';
  args.forEach((a, i) => {
    if (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += formatValue(a);
  });
  return out;
}

/** fmt.Sprintln: always spaces, then a newline. */
export function sprintln(args: unknown[]): string {
  return args.map((a) => formatValue(a)).join(' ') + '\n';
}

/** Go's cap on a width or precision: fmt treats a longer number as garbage rather than pad by it. */
const MAX_WIDTH = 1_000_000;

/**
 * fmt's parsenum: the digits at start. A number above the cap consumes the rest of the format, as
 * Go's does, so the directive prints %!(NOVERB) instead of allocating gigabytes of padding.
 */
function parseNum(format: string, start: number): { num?: number; next: number } {
  let num: number | undefined;
  let i = start;
  for (; i < format.length && format[i] >= '0' && format[i] <= '9'; i++) {
    num = (num ?? 0) * 10 + Number(format[i]);
    if (num > MAX_WIDTH) return { next: format.length };
  }
  return { num, next: i };
}

/** fmt.Sprintf with flags, width and precision (no argument indexes or '*'). */
export function sprintf(format: string, args: unknown[]): string {
  let out = '';
  let argNum = 0;
  let i = 0;
  while (i < format.length) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const f: Flags = {};
    for (; i < format.length; i++) {
      const c = format[i];
      if (c === '-') f.minus = true;
      else if (c === '+') f.plus = true;
      else if (c === '#') f.sharp = true;
      else if (c === ' ') f.space = true;
      else if (c === '0') f.zero = !f.minus;
      else break;
    }
    const width = parseNum(format, i);
    f.width = width.num;
    i = width.next;
    if (format[i] === '.') {
      const prec = parseNum(format, i + 1);
      f.prec = prec.num ?? 0;
      i = prec.next;
    }
    if (i >= format.length) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i) ?? 0);
    i += verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const arg = args[argNum++];
    out += verb === 'T' ? pad(typeName(arg), f, false) : formatVerb(arg, verb, f);
  }
  if (argNum < args.length) {
    const extra = args
      .slice(argNum)
      .map((a) => (a === null || a === undefined ? '<nil>' : `${typeName(a)}=${formatValue(a)}`));
    out += `%!(EXTRA ${extra.join(', ')})`;
  }
  return out;
}
