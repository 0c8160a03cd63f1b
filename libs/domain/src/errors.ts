/**
 * Errors that domain and feature code throw to refuse a request. The HTTP layer maps each to its
 * status; the message is written for a person and reaches the client verbatim.
 */
export abstract class DomainError extends Error {
  abstract readonly status: number;
}

export class InvalidInputError extends DomainError {
  readonly status = 400;
}

export class ForbiddenError extends DomainError {
  readonly status = 403;
}

export class NotFoundError extends DomainError {
  readonly status = 404;
}

export class ConflictError extends DomainError {
  readonly status = 409;
}

/** Another service refused or failed (a channel test): 502, with the failure named. */
export class UpstreamError extends DomainError {
  readonly status = 502;
}
