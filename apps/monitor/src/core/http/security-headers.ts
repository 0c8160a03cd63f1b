import type { FastifyInstance } from 'fastify';

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

/** Headers every response carries. `policy` is read per request so a saved setting applies at once. */
export function registerSecurityHeaders(fastify: FastifyInstance, policy: () => string): void {
  fastify.addHook('onRequest', (_request, reply, done) => {
    void reply.headers({
      'content-security-policy': policy(),
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
