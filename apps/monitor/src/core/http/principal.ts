import { ForbiddenError } from '@monitor/domain';
import type { Role } from '@monitor/contracts';
import type { FastifyRequest } from 'fastify';

/**
 * A signed-in account as the access rules read it. The session strategy attaches the users
 * feature's stored account, which holds more: a caller that reads the rest names that type (`A`
 * below), so core needs no feature's files.
 */
export interface Account {
  id: number;
  username: string;
  role: Role;
}

/**
 * Who is calling: a signed-in account, the API key (an administrator with no account), or the
 * metrics token, which holds no role and reads only the routes that accept it (GET /metrics).
 */
export type Principal<A extends Account = Account> =
  { kind: 'user'; user: A } | { kind: 'api_key' } | { kind: 'metrics_token' };

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
export const principalOf = <A extends Account = Account>(request: FastifyRequest): Principal<A> | undefined =>
  (request as FastifyRequest & { user?: Principal<A> }).user;

/** The principal of an authenticated route (the guard has run, so there is one). */
export function currentPrincipal<A extends Account = Account>(request: FastifyRequest): Principal<A> {
  const principal = principalOf<A>(request);
  if (!principal) throw new Error('no principal on an authenticated route');
  return principal;
}

/** The signed-in account; the API key has none, so account endpoints refuse it. */
export function currentUser<A extends Account = Account>(request: FastifyRequest): A {
  const principal = currentPrincipal<A>(request);
  if (principal.kind !== 'user') throw new ForbiddenError('the API key has no account: sign in to use this');
  return principal.user;
}
