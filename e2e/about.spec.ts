import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import type { VersionInfo } from '@monitor/contracts';

import { startServer } from '../apps/monitor/test/support/server-process';
import { openBrowser, type BrowserSession } from './support/browser';
import { setUpAdminSession } from './support/session';
import { collectProblems } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';

jest.setTimeout(60_000);

const SCREENSHOT = join(SCREENSHOTS_DIR, 'about.png');

describe('About page (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let problems: string[];
  let expected: VersionInfo;

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser({
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    problems = collectProblems(browser.page);
    // Every page but setup and sign-in needs a signed-in person.
    await setUpAdminSession(server.url, browser.context);
    const response = await fetch(`${server.url}/api/version`);
    expect(response.status).toBe(200);
    expected = (await response.json()) as VersionInfo;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    problems.length = 0;
  });

  it('shows the version information GET /api/version returns, under the CSP, without errors', async () => {
    const { page } = browser;
    const response = await page.goto(`${server.url}/settings/about`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");

    await page.getByTestId('about-panel').waitFor({ state: 'visible' });

    const shown = async (testId: string) => (await page.getByTestId(testId).textContent())?.trim();
    expect(await shown('about-version')).toBe(expected.version);
    expect(await shown('about-build')).toBe(expected.build);
    expect(await shown('about-commit')).toBe(expected.commit);
    expect(await shown('about-build-date')).toBe(expected.build_date);
    expect(await shown('about-channel')).toBe(expected.channel);

    await expect(page.title()).resolves.toBe('About · Monitor');
    const aboutLink = page
      .getByRole('navigation', { name: 'Settings sections' })
      .getByRole('link', { name: 'About' });
    await expect(aboutLink.getAttribute('aria-current')).resolves.toBe('page');

    await mkdir(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    expect(problems).toEqual([]);
  });

  it('reaches the About page from / through Settings and its sub-navigation', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { level: 1, name: 'Status' }).waitFor({ state: 'visible' });
    const statusLink = page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Status', exact: true });
    await expect(statusLink.getAttribute('aria-current')).resolves.toBe('page');

    await page.getByTestId('settings-link').click();
    await page.waitForURL(`${server.url}/settings`);
    const aboutLink = page
      .getByRole('navigation', { name: 'Settings sections' })
      .getByRole('link', { name: 'About' });
    await aboutLink.click();
    await page.waitForURL(`${server.url}/settings/about`);
    await page.getByTestId('about-panel').waitFor({ state: 'visible' });
    expect((await page.getByTestId('about-version').textContent())?.trim()).toBe(expected.version);
    await expect(aboutLink.getAttribute('aria-current')).resolves.toBe('page');
    await expect(statusLink.getAttribute('aria-current')).resolves.toBeNull();

    expect(problems).toEqual([]);
  });
});
