import { SetMetadata } from '@nestjs/common';
import type { Role } from '@monitor/contracts';

/** Who may call a route: anyone (`public`), or at least the named role. */
export type Access = 'public' | Role;

export const ACCESS_METADATA = 'monitor:access';

/**
 * Every route declares its access here, and only here. A route without it is refused at run time,
 * and a test walks every registered route to catch it before that.
 */
export const RequireAccess = (access: Access) => SetMetadata(ACCESS_METADATA, access);

/** The routes the specification lists as needing no authentication. */
export const PUBLIC_ROUTES: readonly string[] = [
  'GET /healthz',
  'GET /api/version',
  'GET /api/session',
  'POST /api/login',
  'POST /api/login/totp',
  'POST /api/logout',
  'POST /api/setup',
];
