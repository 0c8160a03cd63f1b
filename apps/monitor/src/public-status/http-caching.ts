import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync, type BrotliOptions } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type Encoding = 'br' | 'gzip';

/**
 * A response body with its strong entity tag, and its compressed forms made once each: a page of
 * 200 sensors with 90 days is about a megabyte of HTML, which the global compression would
 * otherwise compress again for every visitor.
 */
export class Body {
  readonly etag: string;
  private readonly encoded = new Map<Encoding, Buffer>();

  constructor(readonly body: string) {
    this.etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  }

  encodedAs(encoding: Encoding): Buffer {
    let bytes = this.encoded.get(encoding);
    if (!bytes) {
      bytes = encoding === 'br' ? brotliCompressSync(this.body, BROTLI) : gzipSync(this.body, GZIP);
      this.encoded.set(encoding, bytes);
    }
    return bytes;
  }

  /**
   * Compresses a large body in both encodings on libuv's thread pool, so a page of a megabyte is
   * compressed beside the event loop rather than on it when its first visitor asks.
   */
  async precompressed(): Promise<this> {
    if (this.body.length < COMPRESS_FROM) return this;
    const [br, gz] = await Promise.all([brotliAsync(this.body, BROTLI), gzipAsync(this.body, GZIP)]);
    this.encoded.set('br', br);
    this.encoded.set('gzip', gz);
    return this;
  }

  /** Each encoding is its own representation, so its own strong tag. */
  etagOf(encoding: Encoding | null): string {
    return encoding === null ? this.etag : `${this.etag.slice(0, -1)}-${encoding}"`;
  }
}

export const bodyOf = (body: string): Body => new Body(body);

/** Bodies smaller than this are sent as they are (as the global compression does). */
const COMPRESS_FROM = 1024;
const BROTLI: BrotliOptions = {
  params: { [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_QUALITY]: 5 },
};
const GZIP = { level: 6 };
const brotliAsync = promisify(brotliCompress) as (body: string, options: BrotliOptions) => Promise<Buffer>;
const gzipAsync = promisify(gzip) as (body: string, options: typeof GZIP) => Promise<Buffer>;

/** Brotli when the client takes it, else gzip, else none. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | null {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [token, ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(token!.trim(), q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const takes = (token: string) => (accepted.get(token) ?? accepted.get('*') ?? 0) > 0;
  if (takes('br')) return 'br';
  if (takes('gzip') || (accepted.get('x-gzip') ?? 0) > 0) return 'gzip';
  return null;
}

/** If-None-Match names the tag (or `*`): weak comparison, as RFC 9110 asks for this header. */
export function notModified(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

function addVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  void reply.header('vary', current ? `${String(current)}, ${field}` : field);
}

/** Sends a cached body (or 304) with a few seconds of shared caching, compressed once per body. */
export function sendCached(request: FastifyRequest, reply: FastifyReply, body: Body, type: string): void {
  const large = body.body.length >= COMPRESS_FROM;
  const encoding = large ? chooseEncoding(request.headers['accept-encoding']) : null;
  const etag = body.etagOf(encoding);
  if (large) addVary(reply, 'accept-encoding');
  void reply.header('cache-control', 'public, max-age=5').header('etag', etag);
  if (notModified(request, etag)) {
    void reply.code(304).send();
    return;
  }
  void reply.code(200).header('content-type', type);
  if (encoding === null) {
    void reply.send(body.body);
    return;
  }
  // Already encoded: the global compression leaves a body with a Content-Encoding alone.
  void reply.header('content-encoding', encoding).send(body.encodedAs(encoding));
}
