import { inject } from '@angular/core';
import { type Route, Router, Routes } from '@angular/router';

import { MOVED_PAGES } from './app.navigation';
import { adminGuard, setupGuard, signedInGuard, signedOutGuard } from './core/session/session.guards';
import { STATUS_ROUTES } from './features/status/status.routes';

/** The old address of a page that moved, leading to its new one with the same query and fragment. */
function movedPage(from: string, to: string): Route {
  return {
    path: from,
    pathMatch: 'full',
    redirectTo: ({ queryParams, fragment }) =>
      inject(Router).createUrlTree([to], { queryParams, fragment: fragment ?? undefined }),
  };
}

/**
 * One lazy route per feature, except the status grid: it is the first page of nearly every visit, so it
 * ships in the initial bundle instead of waiting for a chunk after the session is known.
 * Add a feature here and, if it has a screen of its own, to MAIN_NAV (or SETTINGS_NAV, under /settings).
 * Everything but first-run setup and signing in needs a signed-in person (see `session.guards.ts`).
 */
export const APP_ROUTES: Routes = [
  {
    path: 'setup',
    canActivate: [setupGuard],
    loadChildren: () => import('./features/setup/setup.routes').then((m) => m.SETUP_ROUTES),
  },
  {
    path: 'sign-in',
    canActivate: [signedOutGuard],
    loadChildren: () => import('./features/sign-in/sign-in.routes').then((m) => m.SIGN_IN_ROUTES),
  },
  {
    path: '',
    canActivateChild: [signedInGuard],
    children: [
      {
        path: '',
        pathMatch: 'full',
        children: STATUS_ROUTES,
      },
      {
        path: 'sensors/new',
        loadChildren: () =>
          import('./features/sensor-editor/sensor-editor.routes').then((m) => m.SENSOR_NEW_ROUTES),
      },
      {
        path: 'sensors/:id/edit',
        loadChildren: () =>
          import('./features/sensor-editor/sensor-editor.routes').then((m) => m.SENSOR_EDIT_ROUTES),
      },
      {
        path: 'sensors',
        loadChildren: () =>
          import('./features/sensor-detail/sensor-detail.routes').then((m) => m.SENSOR_DETAIL_ROUTES),
      },
      {
        path: 'incidents',
        loadChildren: () => import('./features/incidents/incidents.routes').then((m) => m.INCIDENTS_ROUTES),
      },
      {
        path: 'sites',
        loadChildren: () => import('./features/sites/sites.routes').then((m) => m.SITES_ROUTES),
      },
      {
        path: 'status-pages',
        loadChildren: () =>
          import('./features/status-pages/status-pages.routes').then((m) => m.STATUS_PAGES_ROUTES),
      },
      {
        path: 'account',
        loadChildren: () => import('./features/account/account.routes').then((m) => m.ACCOUNT_ROUTES),
      },
      {
        path: 'channels',
        loadChildren: () => import('./features/channels/channels.routes').then((m) => m.CHANNELS_ROUTES),
      },
      {
        path: 'settings',
        loadComponent: () =>
          import('./features/settings-area/settings-area.component').then((m) => m.SettingsAreaComponent),
        children: [
          {
            path: '',
            pathMatch: 'full',
            loadChildren: () => import('./features/settings/settings.routes').then((m) => m.SETTINGS_ROUTES),
          },
          {
            path: 'accounts',
            canActivate: [adminGuard],
            loadChildren: () => import('./features/accounts/accounts.routes').then((m) => m.ACCOUNTS_ROUTES),
          },
          {
            path: 'administration',
            loadChildren: () => import('./features/admin/admin.routes').then((m) => m.ADMIN_ROUTES),
          },
          {
            path: 'about',
            loadChildren: () => import('./features/about/about.routes').then((m) => m.ABOUT_ROUTES),
          },
        ],
      },
      ...Object.entries(MOVED_PAGES).map(([from, to]) => movedPage(from, to)),
      {
        path: '**',
        title: 'app.title.notFound',
        loadComponent: () =>
          import('./features/not-found/not-found-page.component').then((m) => m.NotFoundPageComponent),
      },
    ],
  },
];
