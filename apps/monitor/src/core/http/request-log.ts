import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppLogger } from '../logging/logger';
import { GENERIC_SERVER_ERROR } from './error-response';
import { failureOf } from './request-failure';

export const SLOW_REQUEST_MS = 10_000;

/** The fields every request line carries, whoever answered (a route, the router, the HTTP parser). */
export interface RequestLine {
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  /** The client address: the peer, or X-Forwarded-For's with trust_proxy. */
  ip: string;
  request_id: string;
}

/**
 * Exactly one line per request: `http request` at info, or `http request failed` at error for
 * status >= 500 with what the client was told and what went wrong.
 */
export function logRequestLine(
  logger: AppLogger,
  line: RequestLine & Record<string, unknown>,
  failure?: { message: string; error: string },
  slowMs = SLOW_REQUEST_MS,
): void {
  if (line.status >= 500) {
    logger.error(
      { ...line, message: failure?.message ?? GENERIC_SERVER_ERROR, error: failure?.error ?? 'unknown' },
      'http request failed',
    );
  } else {
    logger.info(line, 'http request');
  }
  // A 408 is slow because the client was: the hint about the database would mislead.
  if (line.duration_ms > slowMs && line.status !== 408) {
    logger.warn(
      { ...line, hint: 'the database may be locked by another process or the disk may be stalled' },
      'slow request',
    );
  }
}

/** The request log for everything Fastify routes; debug level adds detail fields. */
export function registerRequestLog(
  fastify: FastifyInstance,
  logger: AppLogger,
  slowMs = SLOW_REQUEST_MS,
): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    logRequestLine(logger, requestLineOf(request, reply, logger), failureOf(request), slowMs);
    done();
  });
}

/** A push URL's token is its only credential: the log names the route, never the token. */
const PUSH_TOKEN = /^(\/api\/push\/)[^/]+/;

/** The path as logged: without the query string, and without a push token. */
export function loggedPath(url: string): string {
  return url.split('?')[0]!.replace(PUSH_TOKEN, '$1{token}');
}

export function requestLineOf(
  request: FastifyRequest,
  reply: FastifyReply,
  logger: AppLogger,
): RequestLine & Record<string, unknown> {
  const line: RequestLine & Record<string, unknown> = {
    method: request.method,
    path: loggedPath(request.url),
    status: reply.statusCode,
    duration_ms: Math.round(reply.elapsedTime * 10) / 10,
    ip: request.ip,
    request_id: request.id,
  };
  if (logger.isLevelEnabled('debug')) {
    line.remote = request.ip;
    line.user_agent = request.headers['user-agent'];
    line.request_bytes = Number(request.headers['content-length'] ?? 0);
    line.response_bytes = Number(reply.getHeader('content-length') ?? 0);
  }
  return line;
}
