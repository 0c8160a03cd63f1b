/** Parser for Go's text/template syntax, following text/template/parse/parse.go. */
import type { ArgNode, CommandNode, ControlNode, PipeNode, TreeNode } from './ast';
import { BUILTIN_NAMES } from './builtins';
import { TemplateParseError } from './errors';
import { describeToken, lex, type Token, type TokenType } from './lexer';
import { parseNumber, unquote } from './literals';

const MAX_DEPTH = 100;

/** A non-tree result of textOrAction: {{else}} or {{end}}. */
interface Delimiter {
  kind: 'else' | 'end';
  line: number;
}

const isDelimiter = (n: TreeNode | Delimiter): n is Delimiter => n.kind === 'else' || n.kind === 'end';

const OPERAND_START = new Set<TokenType>([
  'bool',
  'charConstant',
  'dot',
  'field',
  'identifier',
  'number',
  'nil',
  'rawString',
  'string',
  'variable',
  'leftParen',
]);

export function parse(source: string): TreeNode[] {
  return new Parser(source).parse();
}

class Parser {
  private readonly tokens: Token[];
  private index = 0;
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  private depth = 0;

  constructor(private readonly source: string) {
    this.tokens = lex(source);
  }

  parse(): TreeNode[] {
    const list: TreeNode[] = [];
    while (this.peek().type !== 'eof') {
      const n = this.textOrAction();
      if (isDelimiter(n)) this.error(`unexpected {{${n.kind}}}`);
      list.push(n);
    }
    return list;
  }

  // --- token stream -------------------------------------------------------------------------------

  private peek(): Token {
    const t = this.tokens[Math.min(this.index, this.tokens.length - 1)];
    if (t.type === 'error') this.error(t.value, t);
    return t;
  }
  private next(): Token {
    const t = this.peek();
    this.index++;
    return t;
  }
  private backup(): void {
    this.index--;
  }
  private nextNonSpace(): Token {
    let t = this.next();
    while (t.type === 'space') t = this.next();
    return t;
  }
  private peekNonSpace(): Token {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }
  private error(
    message: string,
    at: Token = this.tokens[Math.max(0, Math.min(this.index, this.tokens.length) - 1)],
  ): never {
    throw new TemplateParseError(message, at.line);
  }
  private unexpected(t: Token, context: string): never {
    if (t.type === 'error') this.error(t.value, t);
    this.error(`unexpected ${describeToken(t)} in ${context}`, t);
  }
  private expect(type: TokenType, context: string): Token {
    const t = this.nextNonSpace();
    if (t.type !== type) this.unexpected(t, context);
    return t;
  }

  // --- structure ----------------------------------------------------------------------------------

  private itemList(): [TreeNode[], Delimiter] {
    const list: TreeNode[] = [];
    while (this.peekNonSpace().type !== 'eof') {
      const n = this.textOrAction();
      if (isDelimiter(n)) return [list, n];
      list.push(n);
    }
    this.error('unexpected EOF', this.peek());
  }

  private textOrAction(): TreeNode | Delimiter {
    const t = this.nextNonSpace();
    if (t.type === 'text') return { kind: 'text', text: t.value };
    if (t.type === 'leftDelim') return this.action();
    this.unexpected(t, 'input');
  }

  private action(): TreeNode | Delimiter {
    const t = this.nextNonSpace();
    // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check -- other tokens start a pipeline
    switch (t.type) {
      case 'block':
      case 'define':
      case 'template':
        this.error(`{{${t.value}}} is not supported`, t);
      // eslint-disable-next-line no-fallthrough
      case 'break':
      case 'continue': {
        if (this.rangeDepth === 0) this.error(`{{${t.value}}} outside {{range}}`, t);
        const close = this.nextNonSpace();
        if (close.type !== 'rightDelim') this.unexpected(close, `{{${t.value}}}`);
        return { kind: t.type, line: t.line };
      }
      case 'else': {
        const peek = this.peekNonSpace();
        if (peek.type === 'if' || peek.type === 'with') return { kind: 'else', line: peek.line };
        return { kind: 'else', line: this.expect('rightDelim', 'else').line };
      }
      case 'end':
        return { kind: 'end', line: this.expect('rightDelim', 'end').line };
      case 'if':
      case 'with':
      case 'range':
        return this.control(t.type);
      default: {
        this.backup();
        const line = this.peek().line;
        return { kind: 'action', line, pipe: this.pipeline('command', 'rightDelim') };
      }
    }
  }

  private control(context: 'if' | 'with' | 'range'): ControlNode {
    const mark = this.vars.length;
    if (++this.depth > MAX_DEPTH) this.error('template nesting too deep');
    try {
      const pipe = this.pipeline(context, 'rightDelim');
      if (context === 'range') this.rangeDepth++;
      const [list, next] = this.itemList();
      if (context === 'range') this.rangeDepth--;
      let elseList: TreeNode[] | null = null;
      if (next.kind === 'else') {
        const peek = this.peek();
        if ((context === 'if' && peek.type === 'if') || (context === 'with' && peek.type === 'with')) {
          // {{else if x}} is {{else}}{{if x}}...{{end}}{{end}} with the inner {{end}} implied.
          this.next();
          elseList = [this.control(context)];
        } else {
          const [items, end] = this.itemList();
          if (end.kind !== 'end') this.error(`expected end; found {{${end.kind}}}`);
          elseList = items;
        }
      }
      return { kind: context, line: pipe.line, pipe, list, elseList };
    } finally {
      this.vars.length = mark;
      this.depth--;
    }
  }

  // --- pipelines ----------------------------------------------------------------------------------

  private pipeline(context: string, end: 'rightDelim' | 'rightParen'): PipeNode {
    const pipe: PipeNode = {
      kind: 'pipe',
      line: this.peekNonSpace().line,
      decl: [],
      isAssign: false,
      cmds: [],
    };
    for (;;) {
      const mark = this.index;
      const v = this.nextNonSpace();
      if (v.type !== 'variable') {
        this.index = mark;
        break;
      }
      const next = this.peekNonSpace();
      if (next.type === 'assign' || next.type === 'declare') {
        pipe.isAssign = next.type === 'assign';
        this.nextNonSpace();
        if (pipe.isAssign && !this.vars.includes(v.value))
          this.error(`undefined variable ${JSON.stringify(v.value)}`, v);
        pipe.decl.push(v.value);
        this.vars.push(v.value);
        break;
      }
      if (next.type === 'char' && next.value === ',') {
        this.nextNonSpace();
        pipe.decl.push(v.value);
        this.vars.push(v.value);
        if (context === 'range' && pipe.decl.length < 2) {
          const after = this.peekNonSpace().type;
          if (after === 'variable' || after === 'rightDelim' || after === 'rightParen') continue;
          this.error('range can only initialize variables');
        }
        this.error(`too many declarations in ${context}`);
      }
      // Not a declaration: the variable is the first operand.
      this.index = mark;
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      if (t.type === end) {
        if (pipe.cmds.length === 0) this.error(`missing value for ${context}`, t);
        pipe.cmds.slice(1).forEach((c, i) => {
          if (['bool', 'dot', 'nil', 'number', 'string'].includes(c.args[0].kind)) {
            this.error(`non executable command in pipeline stage ${i + 2}`, t);
          }
        });
        return pipe;
      }
      if (!OPERAND_START.has(t.type)) this.unexpected(t, context);
      this.backup();
      pipe.cmds.push(this.command());
    }
  }

  private command(): CommandNode {
    const first = this.peekNonSpace();
    const cmd: CommandNode = { kind: 'command', line: first.line, args: [], text: '' };
    let endPos = first.pos;
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) {
        cmd.args.push(operand);
        const last = this.tokens[this.index - 1];
        endPos = last.pos + last.value.length;
      }
      const t = this.next();
      if (t.type === 'space') continue;
      if (t.type === 'rightDelim' || t.type === 'rightParen') this.backup();
      else if (t.type !== 'pipe') this.unexpected(t, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.error('empty command');
    cmd.text = this.source.slice(first.pos, endPos);
    return cmd;
  }

  private operand(): ArgNode | null {
    const node = this.term();
    if (!node || this.peek().type !== 'field') return node;
    const fields: string[] = [];
    while (this.peek().type === 'field') fields.push(this.next().value.slice(1));
    switch (node.kind) {
      case 'field':
        return {
          kind: 'field',
          idents: [...node.idents, ...fields],
          text: `${node.text}.${fields.join('.')}`,
        };
      case 'variable':
        return {
          kind: 'variable',
          idents: [...node.idents, ...fields],
          text: `${node.text}.${fields.join('.')}`,
        };
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        this.error(`unexpected . after term ${JSON.stringify(termText(node))}`);
      // eslint-disable-next-line no-fallthrough
      case 'chain':
      case 'identifier':
      case 'pipe':
        return { kind: 'chain', node, fields };
    }
  }

  private term(): ArgNode | null {
    const t = this.nextNonSpace();
    // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check -- other tokens are not operands
    switch (t.type) {
      case 'identifier':
        if (!BUILTIN_NAMES.has(t.value)) this.error(`function ${JSON.stringify(t.value)} not defined`, t);
        return { kind: 'identifier', name: t.value };
      case 'dot':
        return { kind: 'dot' };
      case 'nil':
        return { kind: 'nil' };
      case 'variable':
        if (!this.vars.includes(t.value)) this.error(`undefined variable ${JSON.stringify(t.value)}`, t);
        return { kind: 'variable', idents: [t.value], text: t.value };
      case 'field':
        return { kind: 'field', idents: [t.value.slice(1)], text: t.value };
      case 'bool':
        return { kind: 'bool', value: t.value === 'true' };
      case 'charConstant': {
        const s = unquote(t.value);
        const cp = s === null ? undefined : s.codePointAt(0);
        if (s === null || cp === undefined || [...s].length !== 1)
          this.error(`malformed character constant: ${t.value}`, t);
        return { kind: 'number', value: cp, text: t.value };
      }
      case 'number': {
        const value = parseNumber(t.value);
        if (value === null) this.error(`illegal number syntax: ${JSON.stringify(t.value)}`, t);
        return { kind: 'number', value, text: t.value };
      }
      case 'leftParen': {
        if (++this.depth > MAX_DEPTH) this.error('template nesting too deep', t);
        const pipe = this.pipeline('parenthesized pipeline', 'rightParen');
        this.depth--;
        return pipe;
      }
      case 'string':
      case 'rawString': {
        const s = unquote(t.value);
        if (s === null) this.error('invalid syntax', t);
        return { kind: 'string', value: s };
      }
      default:
        this.backup();
        return null;
    }
  }
}

function termText(node: ArgNode): string {
  switch (node.kind) {
    case 'bool':
      return String(node.value);
    case 'string':
      return JSON.stringify(node.value);
    case 'number':
      return node.text;
    case 'nil':
      return 'nil';
    case 'dot':
      return '.';
    case 'field':
    case 'variable':
      return node.text;
    case 'identifier':
      return node.name;
    case 'chain':
    case 'pipe':
      return '(…)';
  }
}
