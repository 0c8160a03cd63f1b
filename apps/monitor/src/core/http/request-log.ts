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

/** The route of push URLs; its one parameter is the URL's only credential. */
const PUSH_ROUTE = '/api/push/:token';
const PUSH_LOGGED = '/api/push/{token}';

/** Decodes %XX escapes that decode cleanly, leaving malformed ones as they are. */
function decodeEscapes(path: string): string {
  return path.replace(/(%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * Whether a path the router did not match was still meant for a push URL (a typo in case,
 * doubled slashes, escapes, dot segments or a trailing part): such a path may carry a token too.
 */
function aimsAtPush(path: string): boolean {
  let decoded = path;
  for (let i = 0; i < 3; i++) decoded = decodeEscapes(decoded);
  const collapsed = decoded.replace(/[\\/]+/g, '/').toLowerCase();
  let resolved = collapsed;
  try {
    resolved = new URL(collapsed, 'http://x').pathname;
  } catch {
    // keep the collapsed path
  }
  return [collapsed, resolved].some((p) => /^\/api\/push(\/|;|$)/.test(p));
}

/**
 * The path as logged: without the query string; the route pattern for push URLs, whatever
 * spelling reached the route (`route` is Fastify's matched pattern, absent or the dashboard's
 * catch-all when nothing matched). A path that matched nothing but aims at a push URL is logged
 * as one too, so a token in a mistyped URL stays out of the log.
 */
export function loggedPath(url: string, route?: string): string {
  if (route === PUSH_ROUTE) return PUSH_LOGGED;
  const path = url.split('?')[0]!;
  const matched = route !== undefined && route !== '/*';
  return !matched && aimsAtPush(path) ? PUSH_LOGGED : path;
}

export function requestLineOf(
  request: FastifyRequest,
  reply: FastifyReply,
  logger: AppLogger,
): RequestLine & Record<string, unknown> {
  const line: RequestLine & Record<string, unknown> = {
    method: request.method,
    path: loggedPath(request.url, request.routeOptions.url),
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
