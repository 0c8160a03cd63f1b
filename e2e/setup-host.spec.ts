import { rm } from 'node:fs/promises';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { collectProblems } from './support/page';

jest.setTimeout(120_000);

const ADMIN = { username: 'admin', password: 'first admin password' } as const;
/** Chromium resolves this made-up name to the server itself: no DNS, no network. */
const REBOUND = 'monitor.test';
const RESOLVER = `--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`;

describe('First-run setup from a host name that is not allowed (DNS rebinding; built server, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  const browsers: BrowserSession[] = [];

  const open = async (locale: string) => {
    const browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
      locale,
      timezoneId: 'UTC',
      args: [RESOLVER],
    });
    browsers.push(browser);
    return browser;
  };
  const at = (host: string, path: string) => `http://${host}:${server.port}${path}`;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    for (const browser of browsers) await browser.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  it('shows the refusal on the setup screen, in English and German, and the server refuses the form', async () => {
    const { page } = await open('en-US');
    const problems = collectProblems(page);
    await page.goto(at(REBOUND, '/'));
    await page.waitForURL(at(REBOUND, '/setup'));
    const refusal = page.getByTestId('setup-host-refused');
    await refusal.getByRole('alert').waitFor();
    expect(await refusal.textContent()).toContain('Setup is not allowed from this address');
    expect(await refusal.textContent()).toContain('allowed_hosts');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByLabel('Repeat the password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Create the account and sign in' }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'The account could not be created' });
    await failed.waitFor();
    expect(await failed.textContent()).toContain(`host "${REBOUND}"`);
    expect(page.url()).toBe(at(REBOUND, '/setup'));
    // The 403 itself, and Chromium's note that plain http on a name (not 127.0.0.1) ignores COOP.
    const expected = /status of 403|Cross-Origin-Opener-Policy header has been ignored/;
    expect(problems.filter((p) => !expected.test(p))).toEqual([]);

    const german = await open('de-DE');
    await german.page.goto(at(REBOUND, '/setup'));
    const ablehnung = german.page.getByTestId('setup-host-refused');
    await ablehnung.getByRole('alert').waitFor();
    expect(await ablehnung.textContent()).toContain('Einrichtung von dieser Adresse aus nicht erlaubt');

    const session = await fetch(at('127.0.0.1', '/api/session'));
    expect(await session.json()).toMatchObject({ setup_needed: true, setup_host_allowed: true });
  });

  it('sets up through 127.0.0.1 in the same browser', async () => {
    const { page } = browsers[0]!;
    await page.goto(at('127.0.0.1', '/setup'));
    await page.getByRole('heading', { level: 1, name: 'Set up Monitor' }).waitFor();
    expect(await page.getByTestId('setup-host-refused').count()).toBe(0);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByLabel('Repeat the password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Create the account and sign in' }).click();
    await page.waitForURL(at('127.0.0.1', '/'));
    await page.getByTestId('header-username').waitFor({ state: 'attached' });
    expect((await page.getByTestId('header-username').textContent())?.trim()).toBe(ADMIN.username);
  });
});
