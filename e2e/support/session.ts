import type { BrowserContext } from 'playwright-core';

export const ADMIN = { username: 'admin', password: 'correct horse battery' } as const;

/** Hands the session cookie a sign-in or setup answer set to the browser, instead of any it had. */
async function adoptSession(serverUrl: string, context: BrowserContext, response: Response): Promise<void> {
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('monitor_session='));
  if (!cookie) throw new Error('the answer set no session cookie');
  const value = cookie.slice('monitor_session='.length).split(';', 1)[0];
  // Replaces the cookie of the same name in one step: clearing first would leave a moment without
  // one, and a request of the open page in that moment would be answered 401.
  await context.addCookies([
    { name: 'monitor_session', value, url: serverUrl, httpOnly: true, sameSite: 'Strict' },
  ]);
}

/**
 * First-run setup through the API (creates the administrator) and hands its session cookie to the
 * browser, so a test starts signed in without going through the setup screen.
 */
export async function setUpAdminSession(serverUrl: string, context: BrowserContext): Promise<void> {
  const response = await fetch(`${serverUrl}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...ADMIN, mode: 'simple' }),
  });
  if (response.status !== 200) throw new Error(`setup answered ${response.status}: ${await response.text()}`);
  await adoptSession(serverUrl, context, response);
}

/** Signs `account` in through the API and hands its cookie to the browser (instead of the current one). */
export async function signInAs(
  serverUrl: string,
  context: BrowserContext,
  account: { username: string; password: string },
): Promise<void> {
  const login = await fetch(`${serverUrl}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(account),
  });
  expect(login.status).toBe(200);
  await adoptSession(serverUrl, context, login);
}

/** Calls the API as the browser's signed-in account (its cookie, the server's Origin). */
export async function apiAs<T>(
  serverUrl: string,
  context: BrowserContext,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const cookie = (await context.cookies(serverUrl)).map((c) => `${c.name}=${c.value}`).join('; ');
  const response = await fetch(`${serverUrl}${path}`, {
    method,
    headers: {
      cookie,
      origin: serverUrl,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}
