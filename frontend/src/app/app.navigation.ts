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

/** The entries of the main navigation, in order. List only screens that work. */
export const MAIN_NAV: readonly NavItem[] = [
  { label: 'app.nav.status', path: '/', exact: true },
  { label: 'app.nav.incidents', path: '/incidents', exact: false },
  { label: 'app.nav.sites', path: '/sites', exact: false },
  { label: 'app.nav.account', path: '/account', exact: false },
  { label: 'app.nav.accounts', path: '/accounts', exact: false, minRole: 'admin' },
  { label: 'app.nav.channels', path: '/channels', exact: false },
  { label: 'app.nav.admin', path: '/admin', exact: false, minRole: 'operator' },
  { label: 'app.nav.settings', path: '/settings', exact: false },
  { label: 'app.nav.about', path: '/about', exact: false },
];
