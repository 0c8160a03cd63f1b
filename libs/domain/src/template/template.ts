/**
 * Go text/template for alert messages: parseTemplate(source).execute(data), or renderTemplate for a
 * result object. Only TemplateParseError and TemplateExecError ever escape.
 */
import type { TreeNode } from './ast';
import { ExecFailure, TemplateExecError, TemplateParseError } from './errors';
import { ExecState, type ExecLimits } from './exec';
import { parse } from './parser';

export const DEFAULT_LIMITS: ExecLimits = { maxOutputBytes: 64 * 1024, maxRangeIterations: 10_000 };

export class Template {
  /** @internal use parseTemplate */
  constructor(
    readonly source: string,
    private readonly tree: TreeNode[],
  ) {}

  /** Renders the template against data; throws TemplateExecError. */
  execute(data: unknown, limits: Partial<ExecLimits> = {}): string {
    try {
      return new ExecState(data, { ...DEFAULT_LIMITS, ...limits }).run(this.tree);
    } catch (e) {
      if (e instanceof ExecFailure) throw new TemplateExecError(e.message);
      if (e instanceof TemplateExecError) throw e;
      throw new TemplateExecError(`template: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** Parses Go text/template source; throws TemplateParseError. */
export function parseTemplate(source: string): Template {
  try {
    return new Template(source, parse(source));
  } catch (e) {
    if (e instanceof TemplateParseError) throw e;
    throw new TemplateParseError(e instanceof Error ? e.message : String(e), 0);
  }
}

export type RenderResult = { ok: true; text: string } | { ok: false; error: string; kind: 'parse' | 'exec' };

/** Parses and executes in one go, reporting failure as a value. */
export function renderTemplate(
  source: string,
  data: unknown,
  limits: Partial<ExecLimits> = {},
): RenderResult {
  try {
    return { ok: true, text: parseTemplate(source).execute(data, limits) };
  } catch (e) {
    const kind = e instanceof TemplateParseError ? 'parse' : 'exec';
    return { ok: false, error: e instanceof Error ? e.message : String(e), kind };
  }
}
