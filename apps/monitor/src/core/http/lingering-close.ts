import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * After an answer sent before the request body was read (413, 408, a refused content type), the
 * connection is not closed at once: closing with unread data makes the kernel send a reset, and a
 * client still writing its body then loses the answer. Instead the write side is closed and the
 * rest of the body is read and dropped until the client closes, `maxBytes` more arrive or
 * `maxMs` pass (nginx calls this lingering close).
 */
export const LINGER_LIMITS = { maxBytes: 8 * 1024 * 1024, maxMs: 2_000 };

export function lingeringClose(socket: Socket, limits = LINGER_LIMITS): void {
  if (socket.destroyed) return;
  const startBytes = socket.bytesRead;
  const stop = () => {
    clearInterval(check);
    clearTimeout(deadline);
    socket.destroy();
  };
  const deadline = setTimeout(stop, limits.maxMs);
  const check = setInterval(() => {
    if (socket.bytesRead - startBytes > limits.maxBytes) stop();
  }, 50);
  socket.once('end', stop);
  socket.once('close', () => {
    clearInterval(check);
    clearTimeout(deadline);
  });
  socket.end();
  socket.resume();
}

/** A request whose announced body has not fully arrived yet. */
export function bodyStillArriving(request: IncomingMessage): boolean {
  if (request.complete) return false;
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length']) > 0;
}

type ClosableSocket = Socket & { destroySoon(): void };

/**
 * Every answer that leaves before its request body has fully arrived says `Connection: close`
 * and closes the lingering way. Node ends such a response with `socket.destroySoon()`, which
 * would destroy the socket as soon as the answer is written; on this socket it lingers instead.
 */
export function registerLingeringClose(fastify: FastifyInstance, limits = LINGER_LIMITS): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const socket = request.raw.socket as ClosableSocket | null;
    if (bodyStillArriving(request.raw) && socket && !socket.destroyed) {
      void reply.header('connection', 'close');
      socket.destroySoon = () => lingeringClose(socket, limits);
    }
    done(null, payload);
  });
}
