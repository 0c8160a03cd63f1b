/** Lexer for Go's text/template syntax, following the state machine of text/template/parse/lex.go. */

export type TokenType =
  | 'error'
  | 'eof'
  | 'text'
  | 'leftDelim'
  | 'rightDelim'
  | 'space'
  | 'field'
  | 'variable'
  | 'identifier'
  | 'string'
  | 'rawString'
  | 'charConstant'
  | 'number'
  | 'bool'
  | 'nil'
  | 'dot'
  | 'pipe'
  | 'leftParen'
  | 'rightParen'
  | 'declare'
  | 'assign'
  | 'char'
  // keywords
  | 'block'
  | 'break'
  | 'continue'
  | 'define'
  | 'else'
  | 'end'
  | 'if'
  | 'range'
  | 'template'
  | 'with';

export interface Token {
  type: TokenType;
  value: string;
  pos: number;
  line: number;
}

const KEYWORDS: Record<string, TokenType> = {
  '.': 'dot',
  block: 'block',
  break: 'break',
  continue: 'continue',
  define: 'define',
  else: 'else',
  end: 'end',
  if: 'if',
  range: 'range',
  nil: 'nil',
  template: 'template',
  with: 'with',
};

const KEYWORD_TYPES = new Set<TokenType>([
  'block',
  'break',
  'continue',
  'define',
  'else',
  'end',
  'if',
  'range',
  'template',
  'with',
]);

/** Go's item.String(), used in "unexpected X in Y" messages. */
export function describeToken(t: Token): string {
  if (t.type === 'eof') return 'EOF';
  if (t.type === 'error') return t.value;
  if (KEYWORD_TYPES.has(t.type)) return `<${t.value}>`;
  if ([...t.value].length > 10) return `${JSON.stringify([...t.value].slice(0, 10).join(''))}...`;
  return JSON.stringify(t.value);
}

const LEFT = '{{';
const RIGHT = '}}';
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isAlphaNumeric = (c: string | undefined): boolean => c !== undefined && /^[\p{L}\p{Nd}_]$/u.test(c);
const hasLeftTrim = (s: string, at: number): boolean => s[at] === '-' && isSpace(s[at + 1]);

/** Go's %#U: U+007D '}' */
export function formatRune(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')} '${c}'`;
}

export function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  let start = 0;
  let parenDepth: number;
  let linePos = 0;
  let lineNo = 1;
  const lineAt = (p: number): number => {
    if (p < linePos) {
      linePos = 0;
      lineNo = 1;
    }
    for (; linePos < p && linePos < input.length; linePos++) if (input[linePos] === '\n') lineNo++;
    return lineNo;
  };
  const emit = (type: TokenType, value = input.slice(start, pos)): void => {
    tokens.push({ type, value, pos: start, line: lineAt(start) });
    start = pos;
  };
  const error = (message: string): Token[] => {
    tokens.push({ type: 'error', value: message, pos: start, line: lineAt(start) });
    return tokens;
  };
  /** Returns [atDelim, withTrim]. */
  const atRightDelim = (): [boolean, boolean] => {
    if (isSpace(input[pos]) && input[pos + 1] === '-' && input.startsWith(RIGHT, pos + 2))
      return [true, true];
    return [input.startsWith(RIGHT, pos), false];
  };
  const skipLeadingSpace = (): void => {
    while (isSpace(input[pos])) pos++;
    start = pos;
  };
  const atTerminator = (): boolean => {
    const c = input[pos];
    if (c === undefined || isSpace(c) || '.,|:()'.includes(c)) return true;
    return input.startsWith(RIGHT, pos);
  };

  // Outer loop: text, then an action or comment.
  for (;;) {
    const x = input.indexOf(LEFT, pos);
    if (x < 0) {
      pos = input.length;
      if (pos > start) emit('text');
      tokens.push({ type: 'eof', value: '', pos, line: lineAt(pos) });
      return tokens;
    }
    if (x > start) {
      pos = x;
      let end = pos;
      if (hasLeftTrim(input, pos + LEFT.length)) while (end > start && isSpace(input[end - 1])) end--;
      if (end > start)
        tokens.push({ type: 'text', value: input.slice(start, end), pos: start, line: lineAt(start) });
      start = pos;
    }
    // Left delimiter.
    pos += LEFT.length;
    const afterMarker = hasLeftTrim(input, pos) ? 2 : 0;
    if (input.startsWith('/*', pos + afterMarker)) {
      pos += afterMarker;
      start = pos;
      const close = input.indexOf('*/', pos + 2);
      if (close < 0) return error('unclosed comment');
      pos = close + 2;
      const [delim, trim] = atRightDelim();
      if (!delim) return error('comment ends before closing delimiter');
      pos += (trim ? 2 : 0) + RIGHT.length;
      start = pos;
      if (trim) skipLeadingSpace();
      continue;
    }
    emit('leftDelim');
    pos += afterMarker;
    start = pos;
    parenDepth = 0;
    // Inside the action.
    for (;;) {
      const [delim, trim] = atRightDelim();
      if (delim) {
        if (parenDepth !== 0) return error('unclosed left paren');
        if (trim) {
          pos += 2;
          start = pos;
        }
        pos += RIGHT.length;
        emit('rightDelim');
        if (trim) skipLeadingSpace();
        break;
      }
      const c = input[pos];
      if (c === undefined) return error('unclosed action');
      if (isSpace(c)) {
        let n = 0;
        while (isSpace(input[pos])) {
          pos++;
          n++;
        }
        // A space followed by "-}}" belongs to the trim marker.
        if (input[pos] === '-' && input.startsWith(RIGHT, pos + 1)) {
          pos--;
          if (n === 1) continue;
        }
        emit('space');
        continue;
      }
      pos++;
      if (c === '=') emit('assign');
      else if (c === ':') {
        if (input[pos] !== '=') return error('expected :=');
        pos++;
        emit('declare');
      } else if (c === '|') emit('pipe');
      else if (c === '"' || c === "'") {
        for (;;) {
          const d = input[pos++];
          if (d === '\\') {
            const e = input[pos++];
            if (e !== undefined && e !== '\n') continue;
          }
          if (d === undefined || d === '\n' || d === '\\') {
            return error(c === '"' ? 'unterminated quoted string' : 'unterminated character constant');
          }
          if (d === c) break;
        }
        emit(c === '"' ? 'string' : 'charConstant');
      } else if (c === '`') {
        const close = input.indexOf('`', pos);
        if (close < 0) return error('unterminated raw quoted string');
        pos = close + 1;
        emit('rawString');
      } else if (c === '$' || (c === '.' && !/[0-9]/.test(input[pos] ?? ''))) {
        if (atTerminator()) {
          emit(c === '$' ? 'variable' : 'dot');
          continue;
        }
        while (isAlphaNumeric(input[pos])) pos++;
        if (!atTerminator()) return error(`bad character ${formatRune(input[pos] ?? '')}`);
        emit(c === '$' ? 'variable' : 'field');
      } else if (c === '.' || c === '+' || c === '-' || (c >= '0' && c <= '9')) {
        pos--;
        if (!scanNumber()) return error(`bad number syntax: ${JSON.stringify(input.slice(start, pos))}`);
        emit('number');
      } else if (isAlphaNumeric(c)) {
        while (isAlphaNumeric(input[pos])) pos++;
        if (!atTerminator()) return error(`bad character ${formatRune(input[pos] ?? '')}`);
        const word = input.slice(start, pos);
        emit(KEYWORDS[word] ?? (word === 'true' || word === 'false' ? 'bool' : 'identifier'));
      } else if (c === '(') {
        parenDepth++;
        emit('leftParen');
      } else if (c === ')') {
        parenDepth--;
        if (parenDepth < 0) return error('unexpected right paren');
        emit('rightParen');
      } else if (c >= ' ' && c <= '~') emit('char');
      else return error(`unrecognized character in action: ${formatRune(c)}`);
    }
  }

  function scanNumber(): boolean {
    const accept = (set: string): boolean => {
      if (input[pos] !== undefined && set.includes(input[pos])) {
        pos++;
        return true;
      }
      return false;
    };
    const acceptRun = (set: string): void => {
      while (accept(set));
    };
    accept('+-');
    let digits = '0123456789_';
    if (accept('0')) {
      if (accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (accept('oO')) digits = '01234567_';
      else if (accept('bB')) digits = '01_';
    }
    acceptRun(digits);
    if (accept('.')) acceptRun(digits);
    if (digits.length === 11 && accept('eE')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    if (digits.length === 23 && accept('pP')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    accept('i');
    if (isAlphaNumeric(input[pos])) {
      pos++;
      return false;
    }
    return true;
  }
}
