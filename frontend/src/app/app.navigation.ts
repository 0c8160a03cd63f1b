export interface NavItem {
  readonly label: string;
  readonly path: string;
  /** Active only on this exact URL (needed for `/`, which prefixes every URL). */
  readonly exact: boolean;
}

/** The entries of the main navigation, in order. List only screens that work. */
export const MAIN_NAV: readonly NavItem[] = [
  { label: 'Status', path: '/', exact: true },
  { label: 'About', path: '/about', exact: false },
];
