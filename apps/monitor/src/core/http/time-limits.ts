import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bodyStillArriving } from './lingering-close';

/** How long a client may take; see docs/decisions.md "HTTP: hostile input and slow clients". */
export interface HttpTimeLimits {
  /** From the connection (or the previous answer's end) to the last request header. */
  headersMs: number;
  /** From the headers to the last byte of the body (then the handler may take what it needs). */
  requestMs: number;
  /** The same for the restore upload (64 MiB), which may come over a slow line. */
  restoreMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
  /** How often Node looks for connections past the header limit (its default is 30 s). */
  checkIntervalMs: number;
}

export const HTTP_TIME_LIMITS: HttpTimeLimits = {
  headersMs: 10_000,
  requestMs: 30_000,
  restoreMs: 10 * 60_000,
  // Above the 60 s idle time of the usual reverse proxies' upstream pools (nginx, AWS ALB), so a
  // proxy never reuses a connection this side is closing.
  keepAliveMs: 65_000,
  checkIntervalMs: 1_000,
};

/** Fastify server options that apply the header and keep-alive limits (Node enforces them). */
export function serverTimeOptions(limits: HttpTimeLimits) {
  return {
    keepAliveTimeout: limits.keepAliveMs,
    // The whole-request limit is ours (registerRequestTimeLimit): Node's is one for every route.
    requestTimeout: 0,
    http: { headersTimeout: limits.headersMs, connectionsCheckingInterval: limits.checkIntervalMs },
  };
}

/**
 * A request whose body has not fully arrived `limitFor(request)` ms after its headers is answered
 * 408 `{error}` (the connection then closes) or, when it was already answered, disconnected.
 */
export function registerRequestTimeLimit(
  fastify: FastifyInstance,
  limitFor: (request: FastifyRequest) => number,
): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!bodyStillArriving(request.raw)) return done();
    const ms = limitFor(request);
    const timer = setTimeout(() => {
      if (!bodyStillArriving(request.raw)) return;
      if (reply.sent) {
        request.raw.socket?.destroy();
        return;
      }
      void reply
        .status(408)
        .header('cache-control', 'no-store')
        .send({ error: `request body not received within ${ms / 1000} seconds` });
    }, ms);
    timer.unref();
    reply.raw.once('close', () => {
      if (!bodyStillArriving(request.raw) || request.raw.socket?.destroyed !== false) clearTimeout(timer);
    });
    done();
  });
}
