import { randomUUID } from 'node:crypto';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { Access, ACCESS_METADATA } from '../../../src/core/http/access.decorator';
import { signToken } from '../../../src/auth/signed-token';
import { InstallationSecretsService } from '../../../src/settings/installation-secrets.service';
import { accountWithRole, apiKeyHeaders, call, Headers, setupAdmin } from './http';
import type { TestApp } from './test-app';

/** Every kind of caller the fuzzer sends each operation as. */
export const CALLER_NAMES = [
  'admin',
  'operator',
  'viewer',
  'api-key',
  'anonymous',
  'forged-cookie',
  'expired-cookie',
  'wrong-api-key',
  'wrong-bearer',
  'cross-origin-admin',
  'oversized-headers',
] as const;
export type CallerName = (typeof CALLER_NAMES)[number];

/** The callers whose credentials must stay valid for the whole run. */
export const SIGNED_IN: readonly CallerName[] = ['admin', 'operator', 'viewer', 'api-key'];

export interface Caller {
  name: CallerName;
  headers: Headers;
  /** Rights it really has: 0 none, 1 viewer, 2 operator, 3 admin. */
  rank: number;
  /** True when its writes come from a foreign origin (the guard must refuse them). */
  foreignOrigin?: boolean;
}

export const RANK: Record<Access, number> = { public: 0, viewer: 1, operator: 2, admin: 3 };

/** Values planted in secret places; none may appear in any answer (backups excepted). */
export const CANARY = {
  hmac: 'canaryHmacSecretQz',
  webhookUrl: 'http://127.0.0.1:9/canaryWebhookPathQz',
  accessToken: 'canaryAccessTokenQz',
  community: 'canaryCommunityQz',
};

/**
 * The minimum role of every route, read from the `RequireAccess` metadata the guard itself
 * enforces (keys like `PUT /api/users/{id}`, as the OpenAPI document writes paths).
 */
export function routeAccess(t: TestApp): Map<string, Access> {
  const discovery = t.app.get(DiscoveryService);
  const reflector = t.app.get(Reflector);
  const scanner = new MetadataScanner();
  const access = new Map<string, Access>();
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as new (...args: unknown[]) => unknown;
    const prototype = controller.prototype as Record<string, unknown>;
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '').replace(/^\/|\/$/g, '');
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name] as () => void;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const sub = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '').replace(/^\/|\/$/g, '');
      const path = `/${[base, sub].filter(Boolean).join('/')}`.replace(/:(\w+)/g, '{$1}');
      const declared = reflector.getAllAndOverride<Access | undefined>(ACCESS_METADATA, [
        handler,
        controller,
      ]);
      if (declared) access.set(`${RequestMethod[method]} ${path}`, declared);
    }
  }
  return access;
}

/** Existing ids and names, refreshed before each operation; `guarded` ones are never changed. */
export interface Pools {
  sensors: number[];
  channels: number[];
  users: number[];
  incidents: number[];
  maintenance: number[];
  sites: string[];
  statusPages: number[];
}

export interface FuzzWorld {
  callers: Record<CallerName, Caller>;
  /** Every API key value handed out during the run (the current one last). */
  apiKeys: string[];
  /** Planted secrets: the canaries and an operator's unconfirmed TOTP secret. */
  plantedSecrets: string[];
  /** Accounts the callers sign in with: never a path id of the fuzzer. */
  callerUserIds: Set<number>;
  /** Canary sensor and channels: read but never changed, so they stay planted. */
  guarded: { sensors: Set<number>; channels: Set<number> };
  /** A backup of this installation without accounts and API key: the base of restore bodies. */
  restoreBase: Record<string, unknown>;
}

function cookieValue(headers: Headers): string {
  return headers.cookie.replace(/^monitor_session=/, '');
}

/** Sets up the installation the fuzzer walks: accounts of every role, sample data, canaries. */
export async function buildWorld(t: TestApp): Promise<FuzzWorld> {
  const admin = await setupAdmin(t);
  // Passwords no generator produces: a generated password change can never end these sessions.
  const operator = await accountWithRole(t, admin, 'fuzz-operator', 'operator', `op ${randomUUID()}`);
  const viewer = await accountWithRole(t, admin, 'fuzz-viewer', 'viewer', `view ${randomUUID()}`);
  const apiKey = await apiKeyHeaders(t, admin);
  const session = await call<{ user: { id: number } }>(t, 'GET', '/api/session', undefined, admin);

  // A real session token of the administrator, expired a minute ago; and one with a bad signature.
  const [id, epoch] = cookieValue(admin).split('.').map(Number);
  const key = await t.app.get(InstallationSecretsService).sessionKey();
  const expired = signToken(key, 'session', [id, epoch], Date.now() - 60_000);
  const signed = cookieValue(admin);
  const forged = `${signed.slice(0, -2)}${signed.endsWith('AA') ? 'BB' : 'AA'}`;

  const callers: Record<CallerName, Caller> = {
    admin: { name: 'admin', headers: admin, rank: 3 },
    operator: { name: 'operator', headers: operator.headers, rank: 2 },
    viewer: { name: 'viewer', headers: viewer.headers, rank: 1 },
    'api-key': { name: 'api-key', headers: apiKey, rank: 3 },
    anonymous: { name: 'anonymous', headers: {}, rank: 0 },
    'forged-cookie': { name: 'forged-cookie', headers: { cookie: `monitor_session=${forged}` }, rank: 0 },
    'expired-cookie': { name: 'expired-cookie', headers: { cookie: `monitor_session=${expired}` }, rank: 0 },
    'wrong-api-key': { name: 'wrong-api-key', headers: { 'x-api-key': `${apiKey['x-api-key']}x` }, rank: 0 },
    'wrong-bearer': { name: 'wrong-bearer', headers: { authorization: 'Bearer mk_not_the_key' }, rank: 0 },
    'cross-origin-admin': {
      name: 'cross-origin-admin',
      headers: { ...admin, origin: 'http://attacker.invalid' },
      rank: 3,
      foreignOrigin: true,
    },
    'oversized-headers': { name: 'oversized-headers', headers: { 'x-padding': 'p'.repeat(20_000) }, rank: 0 },
  };

  const loaded = await call(t, 'POST', '/api/examples', undefined, admin);
  if (loaded.status !== 200) throw new Error(`sample data: ${loaded.status}`);
  const channels: number[] = [];
  for (const body of [
    {
      name: 'canary webhook',
      type: 'webhook',
      config: { url: 'http://127.0.0.1:9/hook', hmac_secret: CANARY.hmac },
    },
    { name: 'canary chat', type: 'chat_webhook_a', config: { webhook_url: CANARY.webhookUrl } },
    {
      name: 'canary federated',
      type: 'federated_chat',
      config: {
        homeserver_url: 'http://127.0.0.1:9',
        access_token: CANARY.accessToken,
        room_id: '!room:127.0.0.1',
      },
    },
  ]) {
    const res = await call<{ id: number }>(t, 'POST', '/api/channels', body, admin);
    if (res.status !== 201) throw new Error(`canary channel: ${res.status} ${JSON.stringify(res.body)}`);
    channels.push(res.body.id);
  }
  const snmp = await call<{ id: number }>(
    t,
    'POST',
    '/api/sensors',
    {
      name: 'canary snmp',
      type: 'snmp',
      target: '127.0.0.1',
      options: { community: CANARY.community, oid: '1.3.6.1.2.1.1.3.0' },
      channels,
    },
    admin,
  );
  if (snmp.status !== 201) throw new Error(`canary sensor: ${snmp.status} ${JSON.stringify(snmp.body)}`);
  // A status page with sections and an announcement: its id is in the pools for the changes.
  const page = await call<{ id: number }>(
    t,
    'POST',
    '/api/status-pages',
    {
      slug: 'fuzz-page',
      title: 'Fuzz',
      published: true,
      sections: [{ title: 'All', sensors: [snmp.body.id] }],
    },
    admin,
  );
  if (page.status !== 201) throw new Error(`status page: ${page.status} ${JSON.stringify(page.body)}`);
  const note = { title: 'Planned work', body: 'Tonight.', severity: 'info' };
  await call(t, 'POST', `/api/status-pages/${page.body.id}/announcements`, note, admin);
  const totp = await call<{ secret: string }>(t, 'POST', '/api/me/totp/start', undefined, operator.headers);
  if (totp.status !== 200) throw new Error(`totp start: ${totp.status}`);
  // One account the fuzzer may edit, disable, reset and delete.
  await call(
    t,
    'POST',
    '/api/users',
    { username: 'fuzz-spare', password: 'long enough password', role: 'viewer' },
    admin,
  );

  const backup = await call<Record<string, unknown>>(t, 'GET', '/api/backup', undefined, admin);
  if (backup.status !== 200) throw new Error(`backup: ${backup.status}`);
  // Without accounts and key, a restored document cannot end the callers' sessions.
  const { accounts: _accounts, api_key: _key, ...restoreBase } = backup.body;

  return {
    callers,
    apiKeys: [apiKey['x-api-key']],
    plantedSecrets: [...Object.values(CANARY), totp.body.secret],
    callerUserIds: new Set([session.body.user.id, operator.id, viewer.id]),
    guarded: { sensors: new Set([snmp.body.id]), channels: new Set(channels) },
    restoreBase,
  };
}

async function ids(
  t: TestApp,
  admin: Headers,
  path: string,
  pick: (body: unknown) => unknown[],
): Promise<number[]> {
  const res = await call(t, 'GET', path, undefined, admin);
  return res.status === 200 ? pick(res.body).map((row) => (row as { id: number }).id) : [];
}

export async function readPools(t: TestApp, world: FuzzWorld): Promise<Pools> {
  const admin = world.callers.admin.headers;
  const list = (body: unknown) => body as unknown[];
  const sites = await call<{ sites: { name: string }[] }>(t, 'GET', '/api/sites', undefined, admin);
  return {
    sensors: await ids(t, admin, '/api/sensors', list),
    channels: await ids(t, admin, '/api/channels', list),
    users: (await ids(t, admin, '/api/users', (b) => (b as { users: unknown[] }).users)).filter(
      (id) => !world.callerUserIds.has(id),
    ),
    incidents: await ids(t, admin, '/api/incidents?limit=1000', list),
    maintenance: await ids(t, admin, '/api/maintenance', list),
    sites: sites.status === 200 ? sites.body.sites.map((s) => s.name) : [],
    statusPages: await ids(
      t,
      admin,
      '/api/status-pages',
      (b) => (b as { status_pages: unknown[] }).status_pages,
    ),
  };
}

/**
 * Keeps the callers' credentials valid across the operations that replace them: a rotated key
 * is taken over, a removed one generated again. Answers a problem when a caller lost its rights.
 */
export async function afterEffects(
  t: TestApp,
  world: FuzzWorld,
  operation: string,
  status: number,
  body: unknown,
): Promise<void> {
  if (status < 200 || status > 299) return;
  if (operation === 'POST /api/api-key') {
    const key = (body as { api_key: string }).api_key;
    world.apiKeys.push(key);
    world.callers['api-key'].headers = { 'x-api-key': key };
  }
  if (operation === 'DELETE /api/api-key' || operation === 'POST /api/restore') {
    const res = await call<{ api_key: string }>(
      t,
      'POST',
      '/api/api-key',
      undefined,
      world.callers.admin.headers,
    );
    world.apiKeys.push(res.body.api_key);
    world.callers['api-key'].headers = { 'x-api-key': res.body.api_key };
  }
}

/** The signed-in callers that no longer are (the run would silently lose coverage otherwise). */
export async function lostCallers(t: TestApp, world: FuzzWorld): Promise<CallerName[]> {
  const lost: CallerName[] = [];
  for (const name of SIGNED_IN) {
    const res = await call(t, 'GET', '/api/settings', undefined, world.callers[name].headers);
    if (res.status !== 200) lost.push(name);
  }
  return lost;
}
