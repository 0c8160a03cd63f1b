import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** An incoming X-Request-Id is kept only when it is this plain: safe in a header and a log line. */
export const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when sane (a proxy's id ties its log to ours), else a fresh UUID. */
export function requestIdOf(request: Pick<IncomingMessage, 'headers'>): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** Every answer names its request, so a client can quote it and an operator find the log line. */
export function registerRequestIdHeader(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
}
