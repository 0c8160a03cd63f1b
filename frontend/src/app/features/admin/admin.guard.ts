import { inject } from '@angular/core';
import { type CanActivateFn, Router, type UrlTree } from '@angular/router';

import { hasRole } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';

/**
 * `/admin`: operators and administrators; viewers go to the status page (the entry is not in their
 * navigation either). Runs after the app's signed-in guard.
 */
export const operatorGuard: CanActivateFn = async (): Promise<boolean | UrlTree> => {
  const store = inject(SessionStore);
  const router = inject(Router);
  try {
    await store.ensureLoaded();
  } catch {
    return false;
  }
  return hasRole(store.role(), 'operator') ? true : router.parseUrl('/');
};
