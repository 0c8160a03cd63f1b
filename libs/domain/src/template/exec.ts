/** The evaluator, following text/template/exec.go. */
import type { ArgNode, ChainNode, CommandNode, ControlNode, PipeNode, TreeNode, VariableNode } from './ast';
import { BUILTINS, CallError, isTrue } from './builtins';
import { ExecFailure, fail } from './errors';
import { formatValue, typeName } from './format';

export interface ExecLimits {
  /** Maximum output size in UTF-8 bytes. */
  maxOutputBytes: number;
  /** Maximum number of range iterations over the whole execution. */
  maxRangeIterations: number;
}

type Flow = 'break' | 'continue' | null;

/** Go's missingVal: no piped-in final argument (distinct from a piped-in missing value). */
const NO_FINAL = Symbol('no final');
type Final = unknown;

interface Variable {
  name: string;
  value: unknown;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function argText(n: ArgNode): string {
  switch (n.kind) {
    case 'field':
    case 'variable':
      return n.text;
    case 'identifier':
      return n.name;
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return String(n.value);
    case 'number':
      return n.text;
    case 'string':
      return JSON.stringify(n.value);
    case 'chain':
      return `(${argText(n.node)}).${n.fields.join('.')}`;
    case 'pipe':
      return '(pipeline)';
  }
}

function located(e: unknown, where: string): unknown {
  if (e instanceof ExecFailure && !e.located) {
    e.message = `template: ${where}: ${e.message}`;
    e.located = true;
  }
  return e;
}

export class ExecState {
  private out = '';
  private bytes = 0;
  private iterations = 0;
  private readonly vars: Variable[];
  private readonly encoder = new TextEncoder();

  constructor(
    root: unknown,
    private readonly limits: ExecLimits,
  ) {
    this.vars = [{ name: '$', value: root }];
  }

  run(tree: TreeNode[]): string {
    this.walk(this.vars[0].value, tree);
    return this.out;
  }

  private write(s: string): void {
    this.bytes += this.encoder.encode(s).length;
    if (this.bytes > this.limits.maxOutputBytes) fail(`output exceeds ${this.limits.maxOutputBytes} bytes`);
    this.out += s;
  }

  // --- variables ----------------------------------------------------------------------------------

  private varValue(name: string): unknown {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) return this.vars[i].value;
    return fail(`undefined variable: ${name}`);
  }

  private setVar(name: string, value: unknown): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i].name === name) {
        this.vars[i].value = value;
        return;
      }
    }
    fail(`undefined variable: ${name}`);
  }

  // --- statements ---------------------------------------------------------------------------------

  private walk(dot: unknown, list: TreeNode[]): Flow {
    for (const node of list) {
      const flow = this.walkNode(dot, node);
      if (flow) return flow;
    }
    return null;
  }

  private walkNode(dot: unknown, node: TreeNode): Flow {
    switch (node.kind) {
      case 'text':
        this.write(node.text);
        return null;
      case 'break':
      case 'continue':
        return node.kind;
      case 'action':
        try {
          const value = this.evalPipeline(dot, node.pipe);
          if (node.pipe.decl.length === 0) this.write(this.printable(value, node.pipe));
        } catch (e) {
          throw located(e, `line ${node.line}`);
        }
        return null;
      case 'if':
      case 'with':
      case 'range': {
        const mark = this.vars.length;
        try {
          return node.kind === 'range' ? this.walkRange(dot, node) : this.walkIfOrWith(dot, node);
        } catch (e) {
          throw located(e, `line ${node.line}`);
        } finally {
          this.vars.length = mark;
        }
      }
    }
  }

  private printable(value: unknown, pipe: PipeNode): string {
    if (value === undefined || value === null) return '<no value>';
    if (typeof value === 'function') {
      fail(`can't print ${pipe.cmds.map((c) => c.text).join(' | ')} of type ${typeName(value)}`);
    }
    return formatValue(value);
  }

  private walkIfOrWith(dot: unknown, node: ControlNode): Flow {
    const value = this.evalPipeline(dot, node.pipe);
    if (isTrue(value)) return this.walk(node.kind === 'with' ? value : dot, node.list);
    return node.elseList ? this.walk(dot, node.elseList) : null;
  }

  private walkRange(dot: unknown, node: ControlNode): Flow {
    const value = this.evalPipeline(dot, node.pipe);
    const { decl, isAssign } = node.pipe;
    const mark = this.vars.length;
    const iterate = (key: unknown, elem: unknown): boolean => {
      if (++this.iterations > this.limits.maxRangeIterations) {
        fail(`range exceeds ${this.limits.maxRangeIterations} iterations`);
      }
      if (decl.length > 0) {
        if (isAssign) this.setVar(decl[0], decl.length > 1 ? key : elem);
        else this.vars[this.vars.length - 1].value = elem;
      }
      if (decl.length > 1) {
        if (isAssign) this.setVar(decl[1], elem);
        else this.vars[this.vars.length - 2].value = key;
      }
      const flow = this.walk(elem, node.list);
      this.vars.length = mark;
      return flow !== 'break';
    };
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (!iterate(i, value[i])) break;
      if (value.length > 0) return null;
    } else if (typeof value === 'number' && Number.isInteger(value)) {
      if (decl.length > 1) fail(`can't use ${value} to iterate over more than one variable`);
      for (let i = 0; i < value; i++) if (!iterate(i, i)) break;
      if (value > 0) return null;
    } else if (isMap(value)) {
      const keys = Object.keys(value).sort();
      for (const k of keys) if (!iterate(k, value[k])) break;
      if (keys.length > 0) return null;
    } else if (value !== undefined && value !== null) {
      fail(`range can't iterate over ${formatValue(value)}`);
    }
    return node.elseList ? this.walk(dot, node.elseList) : null;
  }

  // --- expressions --------------------------------------------------------------------------------

  private evalPipeline(dot: unknown, pipe: PipeNode): unknown {
    let value: Final = NO_FINAL;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      // Go digs through interface{}: a nil interface becomes the invalid (missing) value.
      if (value === null) value = undefined;
    }
    for (const name of pipe.decl) {
      if (pipe.isAssign) this.setVar(name, value);
      else this.vars.push({ name, value });
    }
    return value;
  }

  private evalCommand(dot: unknown, cmd: CommandNode, final: Final): unknown {
    try {
      const first = cmd.args[0];
      switch (first.kind) {
        case 'field':
          return this.evalFieldChain(dot, first.idents, cmd.args, final);
        case 'chain':
          return this.evalChain(dot, first, cmd.args, final);
        case 'identifier':
          return this.evalFunction(dot, first.name, cmd.args, final);
        case 'variable':
          return this.evalVariable(dot, first, cmd.args, final);
        case 'pipe':
          this.notAFunction(cmd.args, final);
          return this.evalPipeline(dot, first);
        case 'nil':
          return fail('nil is not a command');
        case 'bool':
        case 'dot':
        case 'number':
        case 'string':
          this.notAFunction(cmd.args, final);
          return this.evalArg(dot, first);
      }
    } catch (e) {
      throw located(e, `line ${cmd.line}: executing at <${cmd.text}>`);
    }
  }

  private notAFunction(args: ArgNode[], final: Final): void {
    if (args.length > 1 || final !== NO_FINAL)
      fail(`can't give argument to non-function ${argText(args[0])}`);
  }

  private evalArg(dot: unknown, n: ArgNode): unknown {
    let v: unknown;
    switch (n.kind) {
      case 'dot':
        v = dot;
        break;
      case 'nil':
        return null;
      case 'field':
        v = this.evalFieldChain(dot, n.idents, [n], NO_FINAL);
        break;
      case 'variable':
        v = this.evalVariable(dot, n, [n], NO_FINAL);
        break;
      case 'pipe':
        v = this.evalPipeline(dot, n);
        break;
      case 'identifier':
        v = this.evalFunction(dot, n.name, [n], NO_FINAL);
        break;
      case 'chain':
        v = this.evalChain(dot, n, [n], NO_FINAL);
        break;
      case 'bool':
      case 'number':
      case 'string':
        v = n.value;
        break;
    }
    return v === undefined ? null : v;
  }

  private evalVariable(dot: unknown, n: VariableNode, args: ArgNode[], final: Final): unknown {
    const value = this.varValue(n.idents[0]);
    if (n.idents.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFields(value, n.idents.slice(1), args, final);
  }

  private evalChain(dot: unknown, n: ChainNode, args: ArgNode[], final: Final): unknown {
    if (n.node.kind === 'nil') fail(`indirection through explicit nil in ${argText(n)}`);
    return this.evalFields(this.evalArg(dot, n.node), n.fields, args, final);
  }

  private evalFieldChain(dot: unknown, idents: string[], args: ArgNode[], final: Final): unknown {
    return this.evalFields(dot, idents, args, final);
  }

  private evalFields(receiver: unknown, idents: string[], args: ArgNode[], final: Final): unknown {
    let value = receiver;
    idents.forEach((name, i) => {
      const last = i === idents.length - 1;
      value = this.evalField(name, last && (args.length > 1 || final !== NO_FINAL), value);
    });
    return value;
  }

  private evalField(name: string, hasArgs: boolean, receiver: unknown): unknown {
    if (receiver === undefined) return undefined;
    if (receiver === null) fail(`nil pointer evaluating interface {}.${name}`);
    if (isMap(receiver)) {
      if (hasArgs) fail(`${name} is not a method but has arguments`);
      return Object.hasOwn(receiver, name) ? receiver[name] : undefined;
    }
    return fail(`can't evaluate field ${name} in type ${typeName(receiver)}`);
  }

  private evalFunction(dot: unknown, name: string, args: ArgNode[], final: Final): unknown {
    const builtin = BUILTINS[name];
    if (!builtin) fail(`"${name}" is not a defined function`);
    const params = args.slice(1);
    const numIn = params.length + (final === NO_FINAL ? 0 : 1);
    if (builtin.variadic && numIn < builtin.arity) {
      fail(`wrong number of args for ${name}: want at least ${builtin.arity} got ${params.length}`);
    }
    if (!builtin.variadic && numIn !== builtin.arity) {
      fail(`wrong number of args for ${name}: want ${builtin.arity} got ${numIn}`);
    }
    const finalValue = final === undefined ? null : final;
    if (name === 'and' || name === 'or') {
      let v: unknown = null;
      for (const p of params) {
        v = this.evalArg(dot, p);
        if (isTrue(v) === (name === 'or')) return v;
      }
      return final === NO_FINAL ? v : finalValue;
    }
    const values = params.map((p) => this.evalArg(dot, p));
    if (final !== NO_FINAL) values.push(finalValue);
    if (name === 'printf' && typeof values[0] !== 'string') {
      fail(`wrong type for value; expected string; got ${typeName(values[0])}`);
    }
    try {
      return builtin.fn(values);
    } catch (e) {
      if (e instanceof CallError) fail(`error calling ${name}: ${e.message}`);
      throw e;
    }
  }
}
