import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The dashboard's Content-Security-Policy. It names no third party unless a map tile origin is
 * passed in (the only third party an operator may add).
 */
export function contentSecurityPolicy(extraImageOrigins: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    ["img-src 'self' data: blob:", ...extraImageOrigins].join(' '),
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}

/**
 * The origin a request arrived at: its scheme (X-Forwarded-Proto when proxies are trusted) and
 * its Host header. Null when the Host header does not make an origin.
 */
export function requestOrigin(request: Pick<FastifyRequest, 'protocol' | 'host'>): string | null {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return null;
  }
}

/** The image origins a response must add to its policy: the given ones other than the request's own. */
export function crossOriginImageSources(
  origins: readonly string[],
  request: Pick<FastifyRequest, 'protocol' | 'host'>,
): string[] {
  if (origins.length === 0) return [];
  const own = requestOrigin(request);
  return origins.filter((origin) => origin !== own);
}

/** Headers every response carries. `policy` is computed per request so a saved setting applies at once. */
export function registerSecurityHeaders(
  fastify: FastifyInstance,
  policy: (request: FastifyRequest) => string,
): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.headers({
      'content-security-policy': policy(request),
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    });
    done();
  });
}
