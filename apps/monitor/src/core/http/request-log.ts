import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppLogger } from '../logging/logger';
import { GENERIC_SERVER_ERROR } from './error-response';
import { failureOf } from './request-failure';

export const SLOW_REQUEST_MS = 10_000;

/**
 * Exactly one line per request: `http request` at info, or `http request failed` at error for
 * status >= 500 with what the client was told and what went wrong. Debug level adds detail fields.
 */
export function registerRequestLog(
  fastify: FastifyInstance,
  logger: AppLogger,
  slowMs = SLOW_REQUEST_MS,
): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const duration = Math.round(reply.elapsedTime * 10) / 10;
    const fields: Record<string, unknown> = {
      method: request.method,
      path: request.url.split('?')[0],
      status: reply.statusCode,
      duration_ms: duration,
    };
    if (logger.isLevelEnabled('debug')) {
      fields.remote = request.ip;
      fields.user_agent = request.headers['user-agent'];
      fields.request_bytes = Number(request.headers['content-length'] ?? 0);
      fields.response_bytes = Number(reply.getHeader('content-length') ?? 0);
      fields.request_id = request.id;
    }
    if (reply.statusCode >= 500) {
      const failure = failureOf(request);
      logger.error(
        { ...fields, message: failure?.message ?? GENERIC_SERVER_ERROR, error: failure?.error ?? 'unknown' },
        'http request failed',
      );
    } else {
      logger.info(fields, 'http request');
    }
    if (duration > slowMs) {
      logger.warn(
        { ...fields, hint: 'the database may be locked by another process or the disk may be stalled' },
        'slow request',
      );
    }
    done();
  });
}
