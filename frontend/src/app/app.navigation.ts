import type { Role } from '@monitor/contracts';

export interface NavItem {
  /** Catalogue key of the entry's text. */
  readonly label: string;
  readonly path: string;
  /** Active only on this exact URL (needed for `/`, which prefixes every URL). */
  readonly exact: boolean;
  /** Shown only to people with at least this role (the route has a guard too). */
  readonly minRole?: Role;
}

/**
 * The entries of the main navigation, in order: the pages people use every day. Everything else is in
 * the Settings area ({@link SETTINGS_NAV}) or the account menu. List only screens that work.
 */
export const MAIN_NAV: readonly NavItem[] = [
  { label: 'app.nav.status', path: '/', exact: true },
  { label: 'app.nav.incidents', path: '/incidents', exact: false },
  { label: 'app.nav.sites', path: '/sites', exact: false },
  { label: 'app.nav.channels', path: '/channels', exact: false },
  { label: 'app.nav.statusPages', path: '/status-pages', exact: false },
];

export const SETTINGS_PATH = '/settings';

/** The Settings area's sub-navigation, in order (each route has its guard too). */
export const SETTINGS_NAV: readonly NavItem[] = [
  { label: 'app.settingsNav.settings', path: SETTINGS_PATH, exact: true },
  { label: 'app.settingsNav.accounts', path: `${SETTINGS_PATH}/accounts`, exact: false, minRole: 'admin' },
  {
    label: 'app.settingsNav.admin',
    path: `${SETTINGS_PATH}/administration`,
    exact: false,
    minRole: 'operator',
  },
  { label: 'app.settingsNav.about', path: `${SETTINGS_PATH}/about`, exact: false },
];

/** Addresses of pages that moved into the Settings area: old path → new path. */
export const MOVED_PAGES: Readonly<Record<string, string>> = {
  accounts: `${SETTINGS_PATH}/accounts`,
  admin: `${SETTINGS_PATH}/administration`,
  about: `${SETTINGS_PATH}/about`,
};
