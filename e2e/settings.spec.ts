import type { MaintenanceWindow, SettingsResponse } from '@monitor/contracts';
import type { Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { setUpAdminSession, signInAs } from './support/session';
import { collectProblems, trackRequests } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';

jest.setTimeout(150_000);

const SHOTS = SCREENSHOTS_DIR;
const VIEWER = { username: 'onlooker', password: 'viewer password 1' } as const;
const BYSTANDER = { username: 'bystander', password: 'bystander password 1' } as const;

async function eventually<T>(read: () => Promise<T>, expected: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (expected(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Settings page, boot watchdog and tour (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let problems: string[];

  const url = (path: string) => `${server.url}${path}`;
  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });

  async function openSettings(): Promise<void> {
    await page.goto(url('/settings'));
    await heading('Settings').waitFor({ state: 'visible' });
    await page.getByTestId('maintenance').waitFor({ state: 'visible' });
  }

  async function settings(): Promise<SettingsResponse> {
    return (await (await browser.context.request.get(url('/api/settings'))).json()) as SettingsResponse;
  }

  async function withKey(key: string): Promise<number> {
    return (await fetch(url('/api/sensors'), { headers: { 'X-API-Key': key } })).status;
  }

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
      colorScheme: 'light',
    });
    page = browser.page;
    problems = collectProblems(page);
    await setUpAdminSession(server.url, browser.context);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  beforeEach(() => {
    problems.length = 0;
  });

  it('shows the tour on the first visit, once, and records it when finished', async () => {
    await page.goto(url('/'));
    const tour = page.getByTestId('tour');
    await tour.waitFor({ state: 'visible' });
    await expect(page.getByRole('region', { name: 'Welcome tour' }).count()).resolves.toBe(1);
    await page.screenshot({ path: `${SHOTS}/tour.png` });
    for (const title of ['Add a sensor', 'Your first sensors', 'Incidents', 'Sites', 'Settings']) {
      await tour.getByRole('button', { name: 'Next' }).click();
      await tour.getByRole('heading', { name: title }).waitFor();
    }
    const recorded = page.waitForResponse((r) => r.url().endsWith('/api/onboarding/tour'));
    await tour.getByRole('button', { name: 'Finish' }).click();
    expect((await recorded).status()).toBe(200);
    await tour.waitFor({ state: 'detached' });
    expect((await settings()).ui.tour_version).toBeGreaterThanOrEqual(1);

    await page.reload();
    await heading('Status').waitFor({ state: 'visible' });
    await page.waitForTimeout(500);
    await expect(tour.count()).resolves.toBe(0);
    expect(problems).toEqual([]);
  });

  it('applies the theme at once, stores it and keeps it after a reload; stores live off', async () => {
    await openSettings();
    const html = page.locator('html');
    const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    const light = await background();

    const saved = page.waitForResponse(
      (r) => r.url().endsWith('/api/settings') && r.request().method() === 'PUT',
    );
    await page.getByRole('radio', { name: 'Dark' }).check();
    await expect(html.getAttribute('data-theme')).resolves.toBe('dark');
    expect(await background()).not.toBe(light);
    expect((await saved).status()).toBe(200);
    expect((await settings()).ui.theme).toBe('dark');
    await page.screenshot({ path: `${SHOTS}/settings-dark.png`, fullPage: true });

    await page.reload();
    await heading('Settings').waitFor({ state: 'visible' });
    await expect(html.getAttribute('data-theme')).resolves.toBe('dark');
    await expect(page.getByRole('radio', { name: 'Dark' }).isChecked()).resolves.toBe(true);

    await page.getByRole('radio', { name: 'Light' }).check();
    await expect(html.getAttribute('data-theme')).resolves.toBe('light');
    await page.getByTestId('appearance-status').filter({ hasText: 'Saved.' }).waitFor();

    await page.getByTestId('ui-live').uncheck();
    await page.getByTestId('appearance-status').filter({ hasText: 'Saved.' }).waitFor();
    expect(
      await eventually(
        async () => (await settings()).ui.live,
        (v) => v === 'off',
      ),
    ).toBe('off');
    await page.getByTestId('ui-borders').uncheck();
    expect(
      await eventually(
        async () => (await settings()).ui.borders,
        (v) => v === 'off',
      ),
    ).toBe('off');
    expect(problems).toEqual([]);
  });

  it('lets an administrator create, reveal, copy and rotate the API key; the old key is refused', async () => {
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await openSettings();
    const section = page.getByTestId('api-key');
    await section.waitFor({ state: 'visible' });
    if ((await section.getByTestId('api-key-none').count()) > 0) {
      await section.getByRole('button', { name: 'Create key' }).click();
      await section.getByRole('button', { name: 'Make a new key' }).click();
      await section.getByTestId('api-key-value').waitFor();
    }
    const value = section.getByTestId('api-key-value');
    const masked = (await value.textContent())?.trim() ?? '';
    expect(masked).toContain('•');

    await section.getByRole('button', { name: 'Reveal' }).click();
    await section.getByRole('button', { name: 'Hide' }).waitFor();
    const first = (await value.textContent())?.trim() ?? '';
    expect(first).not.toContain('•');
    expect(first).toBe((await settings()).api_key);
    expect(first.endsWith(masked.replace(/•/g, ''))).toBe(true);

    await section.getByRole('button', { name: 'Copy' }).click();
    await section.getByTestId('api-key-status').filter({ hasText: 'Copied' }).waitFor();
    await expect(page.evaluate<string>('navigator.clipboard.readText()')).resolves.toBe(first);
    expect(await withKey(first)).toBe(200);

    await section.getByRole('button', { name: 'Rotate key…' }).click();
    await section.getByTestId('api-key-confirm').waitFor();
    await section.getByRole('button', { name: 'Make a new key' }).click();
    await section.getByTestId('api-key-status').filter({ hasText: 'old one no longer works' }).waitFor();
    const second = (await value.textContent())?.trim() ?? '';
    expect(second).not.toBe(first);
    expect(await withKey(first)).toBe(401);
    expect(await withKey(second)).toBe(200);
    expect(problems).toEqual([]);
  });

  it('creates and deletes a maintenance window (times in UTC, no sensors = all)', async () => {
    await openSettings();
    const form = page.getByTestId('maintenance-form');
    await form.getByLabel('Name').fill('Router swap');
    await form.getByLabel('Starts (UTC)').fill('2030-01-01T10:00');
    await form.getByLabel('Ends (UTC)').fill('2030-01-01T12:30');
    await form.getByRole('button', { name: 'Add window' }).click();

    const row = page.getByTestId('maintenance-window').filter({ hasText: 'Router swap' });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('2030-01-01 10:00 UTC to 2030-01-01 12:30 UTC');
    await expect(row.textContent()).resolves.toContain('All sensors');
    const stored = (await (
      await browser.context.request.get(url('/api/maintenance'))
    ).json()) as MaintenanceWindow[];
    const created = stored.find((window) => window.name === 'Router swap');
    expect(created?.starts_at).toMatch(/^2030-01-01T10:00:00(\.000)?Z$/);
    expect(created?.all_sensors).toBe(true);

    await row.getByRole('button', { name: 'Delete maintenance window Router swap' }).click();
    await row.waitFor({ state: 'detached' });
    const after = (await (
      await browser.context.request.get(url('/api/maintenance'))
    ).json()) as MaintenanceWindow[];
    expect(after.some((window) => window.name === 'Router swap')).toBe(false);
    expect(problems).toEqual([]);
  });

  it('has no serious accessibility violations, and the boot watchdog is gone once the app runs', async () => {
    await openSettings();
    await expect(page.locator('#boot-watchdog').count()).resolves.toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // The dark theme too.
    await page.getByRole('radio', { name: 'Dark' }).check();
    await page.getByTestId('appearance-status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('radio', { name: 'Light' }).check();
    await page.getByTestId('appearance-status').filter({ hasText: 'Saved.' }).waitFor();
  });

  it('switches the whole dashboard to German at once, stores it per account and switches back', async () => {
    await openSettings();
    const select = page.getByTestId('language-select');
    const lang = () => page.evaluate<string>('document.documentElement.lang');
    await expect(page.getByLabel('Language', { exact: true }).inputValue()).resolves.toBe('en');
    const options = (await select.locator('option').allTextContents()).map((name) => name.trim());
    expect(options).toEqual(['English', 'Deutsch']);
    // A marker on the window survives only if the page is not loaded again.
    await page.evaluate('window.__sameDocument = true');

    const saved = page.waitForResponse(
      (r) => r.url().endsWith('/api/settings') && r.request().method() === 'PUT',
    );
    await select.selectOption('de');
    const response = await saved;
    expect(response.status()).toBe(200);
    expect(response.request().postDataJSON()).toEqual({ ui: { language: 'de' } });
    await heading('Einstellungen').waitFor({ state: 'visible' });
    const nav = page.getByRole('navigation', { name: 'Hauptnavigation' });
    await page.getByTestId('settings-link').filter({ hasText: 'Einstellungen' }).waitFor();
    await nav.getByRole('link', { name: 'Störungen', exact: true }).waitFor();
    await expect(lang()).resolves.toBe('de');
    await page.getByTestId('appearance-status').filter({ hasText: 'Gespeichert.' }).waitFor();
    await expect(page.getByRole('radio', { name: 'Dunkel' }).count()).resolves.toBe(1);
    await expect(page.evaluate<boolean>('window.__sameDocument === true')).resolves.toBe(true);
    await expect(select.inputValue()).resolves.toBe('de');
    expect((await settings()).ui.language).toBe('de');
    await page.screenshot({ path: `${SHOTS}/settings-german.png`, fullPage: true });

    await page.reload();
    await heading('Einstellungen').waitFor({ state: 'visible' });
    await expect(lang()).resolves.toBe('de');
    await expect(page.getByLabel('Sprache', { exact: true }).inputValue()).resolves.toBe('de');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The choice belongs to the account: another account in another browser keeps English.
    const created = await browser.context.request.post(url('/api/users'), {
      data: { ...BYSTANDER, role: 'viewer' },
      headers: { origin: server.url },
    });
    expect(created.status()).toBeLessThan(300);
    const other = await openBrowser({ locale: 'en-US', timezoneId: 'UTC', colorScheme: 'light' });
    try {
      await signInAs(server.url, other.context, BYSTANDER);
      await other.page.goto(url('/settings'));
      await other.page.getByRole('heading', { level: 1, name: 'Settings', exact: true }).waitFor();
      await other.page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Incidents', exact: true })
        .waitFor();
      await expect(other.page.evaluate<string>('document.documentElement.lang')).resolves.toBe('en');
      await expect(other.page.getByTestId('language-select').inputValue()).resolves.toBe('en');
      // A viewer may choose a language too.
      await other.page.getByTestId('language-select').selectOption('de');
      await other.page.getByRole('heading', { level: 1, name: 'Einstellungen', exact: true }).waitFor();
      await other.page.getByTestId('language-select').selectOption('en');
      await other.page.getByRole('heading', { level: 1, name: 'Settings', exact: true }).waitFor();
    } finally {
      await other.close();
    }

    await page.getByLabel('Sprache', { exact: true }).selectOption('en');
    await heading('Settings').waitFor({ state: 'visible' });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Incidents' }).waitFor();
    await expect(lang()).resolves.toBe('en');
    await page.getByTestId('appearance-status').filter({ hasText: 'Saved.' }).waitFor();
    expect(
      await eventually(
        async () => (await settings()).ui.language,
        (v) => v === 'en',
      ),
    ).toBe('en');
    expect(problems).toEqual([]);
  });

  it('shows a viewer no API key and no maintenance form; Escape closes the tour and returns focus', async () => {
    const created = await browser.context.request.post(url('/api/users'), {
      data: { ...VIEWER, role: 'viewer' },
      headers: { origin: server.url },
    });
    expect(created.status()).toBeLessThan(300);
    await signInAs(server.url, browser.context, VIEWER);

    // The tour shows on the Status page only, where a sign-in lands.
    await page.goto(url('/settings'));
    await heading('Settings').waitFor({ state: 'visible' });
    const tour = page.getByTestId('tour');
    await expect(tour.count()).resolves.toBe(0);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Status', exact: true })
      .click();
    await tour.waitFor({ state: 'visible' });
    await expect(
      page.evaluate<string | null | undefined>("document.activeElement?.getAttribute('data-testid')"),
    ).resolves.toBe('tour');
    await page.keyboard.press('Escape');
    await tour.waitFor({ state: 'detached' });
    // Focus returns to where it was before the tour took it.
    await expect(
      page.evaluate<string | null | undefined>("document.activeElement?.getAttribute('data-testid')"),
    ).resolves.not.toBe('tour');
    await expect(page.evaluate<boolean>('document.activeElement === document.body')).resolves.toBe(false);
    await page.goto(url('/settings'));
    await heading('Settings').waitFor({ state: 'visible' });
    expect(
      await eventually(
        async () => (await settings()).ui.tour_version,
        (v) => v >= 1,
      ),
    ).toBeGreaterThanOrEqual(1);

    await page.getByTestId('maintenance').waitFor({ state: 'visible' });
    await expect(page.getByTestId('api-key').count()).resolves.toBe(0);
    await expect(page.getByTestId('maintenance-form').count()).resolves.toBe(0);
    expect((await settings()).api_key).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it('says the server does not answer when neither the bundle nor the API can be reached', async () => {
    const cut = await browser.context.newPage();
    try {
      await cut.route(/\/main-[^/]*\.js$/, (route) => route.abort());
      await cut.route(/\/api\//, (route) => route.abort());
      await cut.goto(url('/'));
      const finding = cut.getByTestId('boot-watchdog-finding');
      await finding.waitFor({ state: 'visible', timeout: 20_000 });
      await expect(finding.textContent()).resolves.toContain('the Monitor server does not answer');
      await expect(cut.getByTestId('boot-watchdog').isVisible()).resolves.toBe(true);
    } finally {
      await cut.close();
    }
  });

  it('explains an unreachable API in the started app, offers Try again, and recovers', async () => {
    const cut = await browser.context.newPage();
    try {
      const settled = trackRequests(cut);
      await cut.route(/\/api\//, (route) => route.abort());
      await cut.goto(url('/settings'));
      const alert = cut.getByRole('alert').filter({ hasText: 'Monitor could not find out who is signed in' });
      await alert.waitFor({ state: 'visible' });
      await expect(alert.textContent()).resolves.toContain('The server could not be reached.');
      // The app started, so the boot watchdog is gone rather than shown on top.
      await expect(cut.getByTestId('boot-watchdog').count()).resolves.toBe(0);
      // The route guard reads the session once more after the first read failed; an answer to that
      // arriving after the API is back would recover without Try again.
      await settled();
      await cut.unroute(/\/api\//);
      await alert.getByRole('button', { name: 'Try again' }).click();
      await cut.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
      await expect(alert.count()).resolves.toBe(0);
    } finally {
      await cut.close();
    }
  });

  it('shows the boot watchdog when the main bundle is blocked', async () => {
    const blocked = await browser.context.newPage();
    try {
      await blocked.route(/\/main-[^/]*\.js$/, (route) => route.abort());
      await blocked.goto(url('/'));
      const panel = blocked.getByTestId('boot-watchdog');
      await expect(panel.isVisible()).resolves.toBe(false);
      await panel.waitFor({ state: 'visible', timeout: 20_000 });
      await expect(panel.textContent()).resolves.toContain('server cannot be reached');
      await expect(blocked.getByRole('link', { name: 'Reload' }).count()).resolves.toBe(1);
      // The server answers and the session is good: what failed is the dashboard's own script.
      const finding = blocked.getByTestId('boot-watchdog-finding');
      await finding.waitFor({ state: 'visible' });
      await expect(finding.textContent()).resolves.toContain('the dashboard script itself did not start');
      await blocked.screenshot({ path: `${SHOTS}/watchdog.png` });
    } finally {
      await blocked.close();
    }
  });
});
