import type { FastifyRequest } from 'fastify';

interface Failure {
  message: string;
  error: string;
}

const failures = new WeakMap<FastifyRequest, Failure>();

/** Keeps what went wrong with a request so its single log line can carry it. */
export function rememberFailure(request: FastifyRequest, message: string, error: string): void {
  failures.set(request, { message, error });
}

export function failureOf(request: FastifyRequest): Failure | undefined {
  return failures.get(request);
}
