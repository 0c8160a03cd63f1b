import type { BrowserContext } from 'playwright-core';

export const ADMIN = { username: 'admin', password: 'correct horse battery' } as const;

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
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('monitor_session='));
  if (!cookie) throw new Error('setup set no session cookie');
  const value = cookie.slice('monitor_session='.length).split(';', 1)[0];
  await context.addCookies([
    { name: 'monitor_session', value, url: serverUrl, httpOnly: true, sameSite: 'Strict' },
  ]);
}
