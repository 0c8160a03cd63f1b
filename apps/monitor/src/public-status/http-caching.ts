import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A response body with its strong entity tag. */
export interface Body {
  body: string;
  etag: string;
}

export const bodyOf = (body: string): Body => ({
  body,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`,
});

/** If-None-Match names the tag (or `*`): weak comparison, as RFC 9110 asks for this header. */
export function notModified(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

/** Sends a cached body (or 304) with a few seconds of shared caching. */
export function sendCached(request: FastifyRequest, reply: FastifyReply, body: Body, type: string): void {
  void reply.header('cache-control', 'public, max-age=5').header('etag', body.etag);
  if (notModified(request, body.etag)) {
    void reply.code(304).send();
    return;
  }
  void reply.code(200).header('content-type', type).send(body.body);
}
