export { TemplateExecError, TemplateParseError } from './errors';
export type { ExecLimits } from './exec';
export { DEFAULT_LIMITS, Template, parseTemplate, renderTemplate, type RenderResult } from './template';
