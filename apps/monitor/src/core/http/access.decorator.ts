import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Role } from '@monitor/contracts';

/** Who may call a route: anyone (`public`), or at least the named role. */
export type Access = 'public' | Role;

export const ACCESS_METADATA = 'monitor:access';

/** The OpenAPI extension naming an operation's access; core/http/openapi.ts derives security from it. */
export const ACCESS_EXTENSION = 'x-access';

/**
 * Every route declares its access here, and only here. A route without it is refused at run time,
 * and a test walks every registered route to catch it before that. The same declaration goes into
 * the OpenAPI document, so its security requirements and 401/403 answers cannot drift from the guard.
 */
export const RequireAccess = (access: Access) =>
  applyDecorators(SetMetadata(ACCESS_METADATA, access), ApiExtension(ACCESS_EXTENSION, access));

/** The routes the specification lists as needing no authentication. */
export const PUBLIC_ROUTES: readonly string[] = [
  'GET /healthz',
  'GET /api/version',
  'GET /api/session',
  'POST /api/login',
  'POST /api/login/totp',
  'POST /api/logout',
  'POST /api/setup',
  // Published status pages and their badges (issue 17).
  'GET /api/public/status-pages/:slug',
  'GET /status/:slug',
  'GET /status/refresh.js',
  'GET /badge/:slug/:sensor/status.svg',
  'GET /badge/:slug/:sensor/uptime.svg',
  'GET /badge/:slug/:sensor/latency.svg',
  // Push sensors' URLs: the token in the path is the credential (issue 18).
  'GET /api/push/:token',
  'POST /api/push/:token',
];

export const METRICS_TOKEN_METADATA = 'monitor:metrics-token';

/** The route also accepts the read-only metrics token (GET /metrics, and nothing else). */
export const AcceptsMetricsToken = () => SetMetadata(METRICS_TOKEN_METADATA, true);
