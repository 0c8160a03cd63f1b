import type { Role } from '@monitor/contracts';

import { t } from '../i18n/i18n';

/** Roles from least to most rights; each has the rights of the ones before it. */
const RANK: Readonly<Record<Role, number>> = { viewer: 0, operator: 1, admin: 2 };

/** Whether `role` has at least the rights of `minimum`. */
export function hasRole(role: Role | null | undefined, minimum: Role): boolean {
  return role != null && RANK[role] >= RANK[minimum];
}

/** A role as people read it, in the active language. */
export function roleLabel(role: Role): string {
  return t(`common.role.${role}`);
}
