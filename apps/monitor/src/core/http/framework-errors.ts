import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppLogger } from '../logging/logger';
import { sendError } from './api-exception.filter';
import { lingeringClose } from './lingering-close';
import { rememberFailure } from './request-failure';
import { loggedPath, logRequestLine } from './request-log';

/** Longest path parameter the router accepts (Fastify's default); longer is 414. */
export const MAX_PARAM_LENGTH = 100;

const clientError = (status: number, message: string): Error =>
  Object.assign(new Error(message), { statusCode: status });

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route or hook runs (bad
 * percent-encoding, an over-long parameter) leaves as `{error}` with the usual request log line.
 */
export function frameworkErrorHandler(logger: AppLogger, trustProxy: boolean) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    // The router answers these before the hooks: the log line and headers are added here.
    reply.raw.once('finish', () =>
      logRequestLine(logger, {
        method: request.method,
        path: loggedPath(request.url),
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 10) / 10,
        ip: clientAddress(request, trustProxy),
        request_id: request.id,
      }),
    );
    void reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
    sendError(request, reply, routerError(error));
  };
}

/**
 * The router builds these requests without the trust_proxy setting, so the address is worked out
 * here the way Fastify does with trustProxy true: the first X-Forwarded-For address.
 */
function clientAddress(request: FastifyRequest, trustProxy: boolean): string {
  const forwarded = request.headers['x-forwarded-for'];
  const first = typeof forwarded === 'string' ? forwarded.split(',')[0].trim() : '';
  return trustProxy && first ? first : (request.raw.socket?.remoteAddress ?? '-');
}

function routerError(error: FastifyError): unknown {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return clientError(400, 'the path is not valid percent-encoded UTF-8');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return clientError(414, `a path segment is longer than ${MAX_PARAM_LENGTH} characters`);
    default:
      return error;
  }
}

/** The answer to a request Node's HTTP parser refused, before Fastify ever saw it. */
export function parserErrorAnswer(
  error: Error & { code?: string },
  headersTimeoutMs: number,
): { status: number; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, message: `request headers not received within ${headersTimeoutMs / 1000} seconds` };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'request headers are too large' };
  return { status: 400, message: `malformed HTTP request (${error.code ?? 'unreadable'})` };
}

/** Method and path of the request line at the start of what the parser choked on, when readable. */
export function requestLineIn(raw: unknown): { method: string; path: string } {
  const text = Buffer.isBuffer(raw) ? raw.subarray(0, 4096).toString('latin1') : '';
  const match = /^([A-Z]{1,20}) ([!-~]{1,2048}) HTTP\/\d\.\d\r?\n/.exec(text);
  return match ? { method: match[1], path: match[2].split('?')[0] } : { method: '-', path: '-' };
}

/**
 * Fastify's `clientErrorHandler` (Node's `clientError`): headers too large, unparseable requests
 * and the header time-out get a real HTTP answer with an `{error}` body and a request log line
 * (address from the socket: the headers were never read), then a lingering close.
 */
export function clientErrorHandler(logger: AppLogger, headersTimeoutMs: number) {
  return (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { status, message } = parserErrorAnswer(error, headersTimeoutMs);
    const id = randomUUID();
    const body = JSON.stringify({ error: message });
    // A response already under way on this socket cannot be followed by another status line.
    const responding = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
      ?.headersSent;
    if (socket.writable && !responding) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
          'content-type: application/json; charset=utf-8\r\n' +
          `content-length: ${Buffer.byteLength(body)}\r\n` +
          'cache-control: no-store\r\nx-content-type-options: nosniff\r\n' +
          `x-request-id: ${id}\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    lingeringClose(socket);
    logRequestLine(logger, {
      ...requestLineIn(error.rawPacket),
      status,
      duration_ms: 0,
      ip: socket.remoteAddress ?? '-',
      request_id: id,
    });
  };
}

/**
 * While the server closes, requests still arriving on open connections are answered 503 `{error}`
 * (Fastify's own `return503OnClosing` writes another shape and no log line; it must be off).
 */
export function registerShutdownAnswer(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!closing) return done();
    const message = 'the service is shutting down: try again in a moment';
    rememberFailure(request, message, 'the server is closing');
    void reply
      .status(503)
      .header('connection', 'close')
      .header('cache-control', 'no-store')
      .send({ error: message });
  });
}
