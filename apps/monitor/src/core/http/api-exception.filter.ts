import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from './error-response';
import { rememberFailure } from './request-failure';

/** Every error leaves as `{error}`; a 5xx cause is kept for the request log and never sent. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), exception);
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, exception: unknown): void {
  const response = toErrorResponse(exception);
  if (response.cause !== undefined) rememberFailure(request, response.message, response.cause);
  if (reply.sent) return;
  void reply.status(response.status).header('cache-control', 'no-store').send({ error: response.message });
}
