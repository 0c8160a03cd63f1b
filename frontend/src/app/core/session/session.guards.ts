import { inject } from '@angular/core';
import { type ActivatedRouteSnapshot, type CanActivateFn, Router, type UrlTree } from '@angular/router';
import type { Role, SessionInfo } from '@monitor/contracts';

import { hasRole } from './roles';
import { SessionStore } from './session.store';

/**
 * The session for a guard, or `false` when it could not be read: the app frame then shows the
 * error with "Try again", which resumes the navigation.
 */
async function readSession(store: SessionStore, url: string): Promise<SessionInfo | false> {
  try {
    return await store.ensureLoaded();
  } catch {
    store.blocked(url);
    return false;
  }
}

/** Pages of signed-in people: first-run setup first, otherwise sign in and come back here. */
export const signedInGuard: CanActivateFn = async (_route, state): Promise<boolean | UrlTree> => {
  const store = inject(SessionStore);
  const router = inject(Router);
  const info = await readSession(store, state.url);
  if (info === false) return false;
  if (info.setup_needed) return router.parseUrl('/setup');
  if (!info.authenticated) {
    return router.createUrlTree(['/sign-in'], { queryParams: state.url === '/' ? {} : { next: state.url } });
  }
  return true;
};

/** `/sign-in`: only while signed out and once an account exists. */
export const signedOutGuard: CanActivateFn = async (_route, state): Promise<boolean | UrlTree> => {
  const store = inject(SessionStore);
  const router = inject(Router);
  const info = await readSession(store, state.url);
  if (info === false) return false;
  if (info.setup_needed) return router.parseUrl('/setup');
  if (info.authenticated) return router.parseUrl('/');
  return true;
};

/** `/setup`: only while no account exists. */
export const setupGuard: CanActivateFn = async (_route, state): Promise<boolean | UrlTree> => {
  const store = inject(SessionStore);
  const router = inject(Router);
  const info = await readSession(store, state.url);
  if (info === false) return false;
  if (info.setup_needed) return true;
  return router.parseUrl(info.authenticated ? '/' : '/sign-in');
};

/**
 * Pages for `minimum` and above; anyone else goes to `elsewhere` (the status page unless given).
 * Runs after {@link signedInGuard}.
 */
export function roleGuard(
  minimum: Role,
  elsewhere: (route: ActivatedRouteSnapshot) => unknown[] = () => ['/'],
): CanActivateFn {
  return async (route): Promise<boolean | UrlTree> => {
    const store = inject(SessionStore);
    const router = inject(Router);
    try {
      await store.ensureLoaded();
    } catch {
      return false;
    }
    return hasRole(store.role(), minimum) ? true : router.createUrlTree(elsewhere(route));
  };
}

/** Administrator pages: others go to the status page. */
export const adminGuard = roleGuard('admin');
