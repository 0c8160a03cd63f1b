import { inject } from '@angular/core';
import { type CanActivateFn, Router, type UrlTree } from '@angular/router';

import { hasRole } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';

/**
 * The sensor editor is for administrators: anyone else goes to the sensor's page (or, for
 * `/sensors/new`, the status page). Runs after the signed-in guard.
 */
export const sensorEditorGuard: CanActivateFn = async (route): Promise<boolean | UrlTree> => {
  const store = inject(SessionStore);
  const router = inject(Router);
  try {
    await store.ensureLoaded();
  } catch {
    return false;
  }
  if (hasRole(store.role(), 'admin')) return true;
  const id = route.paramMap.get('id');
  return router.createUrlTree(id === null ? ['/'] : ['/sensors', id]);
};
