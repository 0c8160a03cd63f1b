import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';

export const RESTORE_PATH = '/api/restore';
/** The restore document may be this large; every other request body stays at the global limit. */
export const RESTORE_BODY_LIMIT = 64 * 1024 * 1024;

/** Internal media type: the restore route's JSON body is handed over unread, as a stream. */
const STREAMED_JSON = 'application/x-monitor-restore-stream';

const sentType = new WeakMap<FastifyRequest, string>();

/** The Content-Type the client sent to the restore route (the route swaps it for its own). */
export const restoreContentType = (request: FastifyRequest): string =>
  sentType.get(request) ?? String(request.headers['content-type'] ?? '');

export const mediaTypeOf = (header: string): string => header.split(';')[0].trim().toLowerCase();

export const isReadable = (body: unknown): body is Readable =>
  typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function';

/**
 * Lets POST /api/restore read its body as a stream instead of a parsed object: a JSON request to
 * that route is relabelled before parsing, and a parser for the internal label passes the
 * request stream through untouched. The route reads and limits it itself (64 MiB); the rest of
 * the API keeps the global JSON parser and body limit. Call before the routes are registered.
 */
export function registerRestoreBody(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(STREAMED_JSON, (request, payload, done) => {
    if (request.routeOptions.url !== RESTORE_PATH) {
      done(
        Object.assign(new Error(`Unsupported Media Type: ${STREAMED_JSON}`), { statusCode: 415 }),
        undefined,
      );
      return;
    }
    done(null, payload);
  });
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.url !== RESTORE_PATH || !methods.includes('POST')) return;
    route.bodyLimit = RESTORE_BODY_LIMIT;
    const relabel = (
      request: FastifyRequest,
      _reply: unknown,
      payload: Readable,
      done: (e: null, p: Readable) => void,
    ) => {
      const type = String(request.headers['content-type'] ?? '');
      sentType.set(request, type);
      if (mediaTypeOf(type) === 'application/json') request.headers['content-type'] = STREAMED_JSON;
      done(null, payload);
    };
    const existing = route.preParsing;
    route.preParsing = [
      ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]),
      relabel,
    ];
  });
}
