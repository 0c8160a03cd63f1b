import { ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Access, ACCESS_METADATA, METRICS_TOKEN_METADATA } from '../core/http/access.decorator';
import { isSameOriginWrite } from './origin-check';
import { hasRole, principalOf } from '../core/http/principal';

/**
 * The one gate in front of every route: authenticates (API key first, then the session cookie),
 * enforces the route's declared access, and checks the origin of cookie-authenticated writes.
 */
@Injectable()
export class AccessGuard extends AuthGuard(['api-key', 'session']) {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (access === undefined) {
      throw new Error(`route ${request.method} ${request.routeOptions.url} declares no access; refusing it`);
    }
    if (access === 'public') {
      // Identify the caller when possible (GET /api/session), but never refuse. A request without
      // credentials has no one to identify: a crowd on a public status page skips the strategies.
      if (offersCredentials(request))
        await (super.canActivate(context) as Promise<boolean>).catch(() => false);
    } else {
      await (super.canActivate(context) as Promise<boolean>);
      const principal = principalOf(request);
      if (principal?.kind === 'metrics_token') {
        const accepted = this.reflector.getAllAndOverride<boolean | undefined>(METRICS_TOKEN_METADATA, [
          context.getHandler(),
          context.getClass(),
        ]);
        if (!accepted) throw new ForbiddenException('the metrics token only reads GET /metrics');
      } else if (!principal || !hasRole(principal, access)) {
        throw new ForbiddenException(`this needs the ${access} role or higher`);
      }
    }
    const principal = principalOf(request);
    if (principal?.kind !== 'api_key') {
      const origin = request.headers.origin;
      const referer = request.headers.referer;
      if (!isSameOriginWrite(request.method, request.host, origin, referer)) {
        throw new ForbiddenException('cross-site request refused: Origin does not match this host');
      }
    }
    return true;
  }

  override handleRequest<T>(error: unknown, principal: T): T {
    if (error) throw error;
    if (!principal) throw new UnauthorizedException('not signed in, or the session has expired');
    return principal;
  }
}

/** Whether the request carries anything a strategy reads: a cookie, an API key header or Authorization. */
const offersCredentials = (request: FastifyRequest): boolean =>
  request.headers.cookie !== undefined ||
  request.headers['x-api-key'] !== undefined ||
  request.headers.authorization !== undefined;
