/** Go literal syntax: number literals and strconv.Unquote. */

/** Go number literal → value, or null when malformed. Integers and floats both become JS numbers. */
export function parseNumber(text: string): number | null {
  if (/_$|__|^[+-]?_/.test(text) || text.endsWith('i')) return null;
  const clean = text.replace(/_/g, '');
  const sign = clean.startsWith('-') ? -1 : 1;
  const body = clean.replace(/^[+-]/, '');
  let m: RegExpExecArray | null;
  if ((m = /^0[xX]([0-9a-fA-F]+)$/.exec(body))) return sign * parseInt(m[1], 16);
  if ((m = /^0[bB]([01]+)$/.exec(body))) return sign * parseInt(m[1], 2);
  if ((m = /^0[oO]?([0-7]+)$/.exec(body))) return sign * parseInt(m[1], 8);
  if (/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(body)) return sign * Number(body);
  return null;
}

/** Go's strconv.Unquote for "…", `…` and '…'; null when the literal is malformed. */
export function unquote(literal: string): string | null {
  const q = literal[0];
  if (literal.length < 2 || literal[literal.length - 1] !== q) return null;
  const body = literal.slice(1, -1);
  if (q === '`') return body.includes('`') ? null : body.replace(/\r/g, '');
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === q || c === '\n') return null;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    const simple: Record<string, string> = {
      a: '\x07',
      b: '\b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
      v: '\v',
      '\\': '\\',
    };
    if (e in simple) out += simple[e];
    else if (e === q) out += q;
    else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) return null;
      const code = parseInt(hex, 16);
      if (code > 0x10ffff || (e !== 'x' && code >= 0xd800 && code < 0xe000)) return null;
      out += String.fromCodePoint(code);
      i += n;
    } else if (e >= '0' && e <= '7') {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) return null;
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
    } else return null;
  }
  return out;
}
