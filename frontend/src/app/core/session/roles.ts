import type { Role } from '@monitor/contracts';

/** Roles from least to most rights; each has the rights of the ones before it. */
const RANK: Readonly<Record<Role, number>> = { viewer: 0, operator: 1, admin: 2 };

/** Whether `role` has at least the rights of `minimum`. */
export function hasRole(role: Role | null | undefined, minimum: Role): boolean {
  return role != null && RANK[role] >= RANK[minimum];
}

const LABELS: Readonly<Record<Role, string>> = {
  viewer: 'Viewer',
  operator: 'Operator',
  admin: 'Administrator',
};

/** A role as people read it. */
export function roleLabel(role: Role): string {
  return LABELS[role];
}
