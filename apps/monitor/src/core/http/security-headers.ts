import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isApiPath } from './api-path';

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

/** The one /api answer that keeps its own shared caching (a few seconds and an ETag). */
const PUBLIC_STATUS_JSON = '/api/public/status-pages/:slug';

/**
 * Whether an answer must say `Cache-Control: no-store`: every /api answer, errors and unknown
 * paths included, except the public status-page JSON. The matched route decides where there is
 * one (the dashboard's catch-all `/*` does not count), else the raw path.
 */
export function mustNotBeStored(request: Pick<FastifyRequest, 'url' | 'routeOptions'>): boolean {
  const route = request.routeOptions.url;
  if (route === PUBLIC_STATUS_JSON) return false;
  return isApiPath(route !== undefined && route !== '/*' ? route : request.url);
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
    // API answers carry session state and secrets; a handler may still set a stricter value.
    if (mustNotBeStored(request)) void reply.header('cache-control', 'no-store');
    done();
  });
}
