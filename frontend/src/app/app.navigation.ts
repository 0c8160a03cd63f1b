import type { Role } from '@monitor/contracts';

export interface NavItem {
  readonly label: string;
  readonly path: string;
  /** Active only on this exact URL (needed for `/`, which prefixes every URL). */
  readonly exact: boolean;
  /** Shown only to people with at least this role (the route has a guard too). */
  readonly minRole?: Role;
}

/** The entries of the main navigation, in order. List only screens that work. */
export const MAIN_NAV: readonly NavItem[] = [
  { label: 'Status', path: '/', exact: true },
  { label: 'Incidents', path: '/incidents', exact: false },
  { label: 'Sites', path: '/sites', exact: false },
  { label: 'Account', path: '/account', exact: false },
  { label: 'Accounts', path: '/accounts', exact: false, minRole: 'admin' },
  { label: 'Channels', path: '/channels', exact: false },
  { label: 'Administration', path: '/admin', exact: false, minRole: 'operator' },
  { label: 'Settings', path: '/settings', exact: false },
  { label: 'About', path: '/about', exact: false },
];
