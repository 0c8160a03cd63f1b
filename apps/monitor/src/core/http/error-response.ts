import { HttpException } from '@nestjs/common';
import { DomainError } from '@monitor/domain';
import { storageErrorResponse } from '../database/storage-errors';

export const GENERIC_SERVER_ERROR = 'internal server error: the cause has been logged';

export interface ErrorResponse {
  status: number;
  /** What the client is told. */
  message: string;
  /** What went wrong, for the log only; set for 5xx. */
  cause?: string;
}

/** Fastify's own client errors (body too large, malformed JSON…) carry a 4xx statusCode. */
interface FastifyLikeError {
  statusCode?: number;
  message: string;
}

/** One mapping from anything thrown to the `{error}` body and status the client receives. */
export function toErrorResponse(exception: unknown): ErrorResponse {
  if (exception instanceof DomainError) return { status: exception.status, message: exception.message };
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const message = httpExceptionMessage(exception);
    return status >= 500 ? { status, message: GENERIC_SERVER_ERROR, cause: message } : { status, message };
  }
  const fastify = exception as FastifyLikeError;
  if (
    fastify &&
    typeof fastify.statusCode === 'number' &&
    fastify.statusCode >= 400 &&
    fastify.statusCode < 500
  ) {
    return { status: fastify.statusCode, message: fastify.message };
  }
  // A write refused by a full or failing disk: 507/503 so clients know nothing was saved.
  const storage = storageErrorResponse(exception);
  if (storage) return storage;
  return { status: 500, message: GENERIC_SERVER_ERROR, cause: describeCause(exception) };
}

function httpExceptionMessage(exception: HttpException): string {
  const body = exception.getResponse();
  if (typeof body === 'string') return body;
  const message = (body as { message?: unknown }).message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  return typeof message === 'string' ? message : exception.message;
}

function describeCause(exception: unknown): string {
  if (exception instanceof Error) return `${exception.name}: ${exception.message}`;
  return String(exception);
}
