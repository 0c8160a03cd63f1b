import { ForbiddenError } from '@monitor/domain';
import type { Role } from '@monitor/contracts';
import type { FastifyRequest } from 'fastify';
import type { User } from '../users/users.repository';

/**
 * Who is calling: a signed-in account, the API key (an administrator with no account), or the
 * metrics token, which holds no role and reads only the routes that accept it (GET /metrics).
 */
export type Principal = { kind: 'user'; user: User } | { kind: 'api_key' } | { kind: 'metrics_token' };

const RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

export const roleOf = (principal: Principal): Role | null =>
  principal.kind === 'api_key' ? 'admin' : principal.kind === 'user' ? principal.user.role : null;

export const hasRole = (principal: Principal, required: Role): boolean => {
  const role = roleOf(principal);
  return role !== null && RANK[role] >= RANK[required];
};

/** Name recorded for actions (acknowledgements): the username, or `api`. */
export const actorName = (principal: Principal): string =>
  principal.kind === 'user' ? principal.user.username : principal.kind === 'api_key' ? 'api' : 'metrics';

/** The principal passport attached to the request, if any. */
export const principalOf = (request: FastifyRequest): Principal | undefined =>
  (request as FastifyRequest & { user?: Principal }).user;

/** The principal of an authenticated route (the guard has run, so there is one). */
export function currentPrincipal(request: FastifyRequest): Principal {
  const principal = principalOf(request);
  if (!principal) throw new Error('no principal on an authenticated route');
  return principal;
}

/** The signed-in account; the API key has none, so account endpoints refuse it. */
export function currentUser(request: FastifyRequest): User {
  const principal = currentPrincipal(request);
  if (principal.kind !== 'user') throw new ForbiddenError('the API key has no account: sign in to use this');
  return principal.user;
}
