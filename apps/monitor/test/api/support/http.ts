import { expectNoCredentialHashes } from './secrets';
import type { TestApp } from './test-app';

export const ADMIN = { username: 'admin', password: 'correct horse battery' };

export type Headers = Record<string, string>;

/** JSON request init; `headers` may carry a cookie or an API key. */
export function jsonInit(method: string, body?: unknown, headers: Headers = {}): RequestInit {
  return {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
}

/** The `name=value` part of the session cookie a response set, or null. */
export function sessionCookieOf(response: Response): string | null {
  for (const header of response.headers.getSetCookie()) {
    const [pair] = header.split(';');
    if (pair.startsWith('monitor_session=') && pair !== 'monitor_session=') return pair;
  }
  return null;
}

export async function call<T = unknown>(
  t: TestApp,
  method: string,
  path: string,
  body?: unknown,
  headers: Headers = {},
): Promise<{ status: number; body: T; response: Response }> {
  const response = await t.request(path, jsonInit(method, body, headers));
  const json = (response.headers.get('content-type') ?? '').includes('application/json');
  const parsed = json ? ((await response.clone().json()) as T) : (undefined as T);
  return { status: response.status, body: parsed, response };
}

/** Runs first-run setup and answers the admin's cookie header. */
export async function setupAdmin(t: TestApp, admin = ADMIN): Promise<Headers> {
  const res = await call(t, 'POST', '/api/setup', { ...admin, mode: 'simple' });
  if (res.status !== 200) throw new Error(`setup failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { cookie: sessionCookieOf(res.response) as string };
}

/** Signs in without a second factor and answers the cookie header. */
export async function signIn(t: TestApp, username: string, password: string): Promise<Headers> {
  const res = await call(t, 'POST', '/api/login', { username, password });
  const cookie = sessionCookieOf(res.response);
  if (res.status !== 200 || !cookie)
    throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { cookie };
}

/** Creates an account as `admin` and signs it in. */
export async function accountWithRole(
  t: TestApp,
  admin: Headers,
  username: string,
  role: 'admin' | 'operator' | 'viewer',
  password = 'long enough password',
): Promise<{ id: number; headers: Headers }> {
  const res = await call<{ id: number }>(t, 'POST', '/api/users', { username, password, role }, admin);
  if (res.status !== 201) throw new Error(`create user failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, headers: await signIn(t, username, password) };
}

/** Generates an API key as `admin` and answers the header that carries it. */
export async function apiKeyHeaders(t: TestApp, admin: Headers): Promise<Headers> {
  const res = await call<{ api_key: string }>(t, 'POST', '/api/api-key', undefined, admin);
  return { 'x-api-key': res.body.api_key };
}

/** Fails when any response body carried a credential hash or one of the given secrets. */
export function expectNoSecretsIn(bodies: string[], secrets: string[] = []): void {
  expectNoCredentialHashes(bodies);
  for (const body of bodies) for (const secret of secrets) expect(body).not.toContain(secret);
}
