/** Errors raised by the template engine. Nothing else ever escapes parseTemplate / execute. */
export class TemplateParseError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`template: line ${line}: ${message}`);
    this.name = 'TemplateParseError';
  }
}

export class TemplateExecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateExecError';
  }
}

/** Internal: an execution failure not yet tagged with the line and command where it happened. */
export class ExecFailure extends Error {
  located = false;
}

export function fail(message: string): never {
  throw new ExecFailure(message);
}
