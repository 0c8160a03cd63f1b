import { Injectable, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Strategy } from 'passport-custom';
import { InstallationSecretsService } from '../settings/installation-secrets.service';
import type { Principal } from '../core/http/principal';
import { presentedKey } from './api-key-header';
import { SESSION_COOKIE } from './session-cookie';
import { SessionService } from './session.service';

/**
 * `X-API-Key: <key>` or `Authorization: Bearer <key>`; a bearer may also be the metrics token. A
 * wrong key is a 401, never a fall-through.
 */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(Strategy, 'api-key') {
  constructor(private readonly secrets: InstallationSecretsService) {
    super();
  }

  async validate(request: FastifyRequest): Promise<Principal | null> {
    const { key: presented, bearer } = presentedKey(request.headers);
    if (presented === undefined) return null;
    if (await this.secrets.isApiKey(presented)) return { kind: 'api_key' };
    if (bearer !== undefined && presented === bearer && (await this.secrets.isMetricsToken(bearer)))
      return { kind: 'metrics_token' };
    throw new UnauthorizedException('invalid API key');
  }
}

/** The `monitor_session` cookie; the account row is re-read on every request. */
@Injectable()
export class SessionStrategy extends PassportStrategy(Strategy, 'session') {
  constructor(private readonly sessions: SessionService) {
    super();
  }

  async validate(request: FastifyRequest): Promise<Principal | null> {
    const user = await this.sessions.userOfSession(request.cookies?.[SESSION_COOKIE]);
    return user ? { kind: 'user', user } : null;
  }
}
