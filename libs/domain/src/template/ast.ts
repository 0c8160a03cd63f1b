/** The parse tree, modelled on text/template/parse's node types. */

export interface TextNode {
  kind: 'text';
  text: string;
}
export interface ActionNode {
  kind: 'action';
  line: number;
  pipe: PipeNode;
}
export interface ControlNode {
  kind: 'if' | 'with' | 'range';
  line: number;
  pipe: PipeNode;
  list: TreeNode[];
  elseList: TreeNode[] | null;
}
export interface LoopControlNode {
  kind: 'break' | 'continue';
  line: number;
}
export type TreeNode = TextNode | ActionNode | ControlNode | LoopControlNode;

export interface PipeNode {
  kind: 'pipe';
  line: number;
  /** Declared or assigned variable names, "$x". */
  decl: string[];
  isAssign: boolean;
  cmds: CommandNode[];
}
export interface CommandNode {
  kind: 'command';
  line: number;
  args: ArgNode[];
  /** Source text of the command, for error messages. */
  text: string;
}
export interface FieldNode {
  kind: 'field';
  idents: string[];
  text: string;
}
export interface VariableNode {
  kind: 'variable';
  /** idents[0] is the variable ("$x"), the rest are field names. */
  idents: string[];
  text: string;
}
export interface ChainNode {
  kind: 'chain';
  node: ArgNode;
  fields: string[];
}
export interface IdentifierNode {
  kind: 'identifier';
  name: string;
}
export interface DotNode {
  kind: 'dot';
}
export interface NilNode {
  kind: 'nil';
}
export interface BoolNode {
  kind: 'bool';
  value: boolean;
}
export interface NumberNode {
  kind: 'number';
  value: number;
  text: string;
}
export interface StringNode {
  kind: 'string';
  value: string;
}
export type ArgNode =
  | FieldNode
  | VariableNode
  | ChainNode
  | IdentifierNode
  | DotNode
  | NilNode
  | BoolNode
  | NumberNode
  | StringNode
  | PipeNode;
