import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import type { HealthStatus } from '@monitor/contracts';
import type { APIRequestContext, Locator, Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';
import { ADMIN, setUpAdminSession, signInAs } from './support/session';

jest.setTimeout(120_000);

const OPERATOR = { username: 'operator1', password: 'operator password 1' } as const;
const VIEWER = { username: 'viewer1', password: 'viewer password 1' } as const;
/** The danger colour of the light theme (styles.css `--danger`), as computed styles report it. */
const DANGER = 'rgb(192, 54, 44)';

describe('Navigation, account menu, Settings area and health indicator (built server, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let api: APIRequestContext;
  let problems: string[];

  const url = (path: string) => `${server.url}${path}`;
  const mainNav = () => page.getByRole('navigation', { name: 'Main' });
  const settingsNav = () => page.getByRole('navigation', { name: 'Settings sections' });
  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
  const accountButton = (name: string) => page.getByRole('button', { name: `Signed in as ${name}` });
  const accountMenu = () => page.getByRole('menu', { name: 'Account menu' });
  const focused = () =>
    page.evaluate<string>(`(document.activeElement?.getAttribute('data-testid') ?? '') + '|' +
      (document.activeElement?.textContent ?? '').trim()`);

  async function labels(links: Locator): Promise<string[]> {
    return (await links.allTextContents()).map((label) => label.trim());
  }

  async function screenshot(name: string): Promise<void> {
    await mkdir(SCREENSHOTS_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS_DIR, name) });
  }

  async function openStatus(): Promise<void> {
    await page.goto(url('/'));
    await heading('Status').waitFor({ state: 'visible' });
  }

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser({
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = browser.page;
    api = browser.context.request;
    problems = collectProblems(page);
    await setUpAdminSession(server.url, browser.context);
    for (const account of [
      { ...OPERATOR, role: 'operator' },
      { ...VIEWER, role: 'viewer' },
    ]) {
      const created = await api.post(url('/api/users'), { data: account, headers: { origin: server.url } });
      expect(created.status()).toBe(201);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    problems.length = 0;
  });

  it('has exactly Status, Incidents, Sites, Channels and Status pages at the top, and a Settings link beside them', async () => {
    await openStatus();
    expect(await labels(mainNav().getByRole('link'))).toEqual([
      'Status',
      'Incidents',
      'Sites',
      'Channels',
      'Status pages',
    ]);
    await expect(
      mainNav().getByRole('link', { name: 'Status', exact: true }).getAttribute('aria-current'),
    ).resolves.toBe('page');

    const settings = page.getByTestId('settings-link');
    expect((await settings.textContent())?.trim()).toBe('Settings');
    await settings.click();
    await page.waitForURL(url('/settings'));
    await heading('Settings').waitFor({ state: 'visible' });
    await expect(settings.getAttribute('aria-current')).resolves.toBe('page');
    expect(problems).toEqual([]);
  });

  it('opens the account menu by mouse: role, Account; a click elsewhere closes it; Account leads to /account', async () => {
    await openStatus();
    const button = accountButton(ADMIN.username);
    await expect(button.getAttribute('aria-haspopup')).resolves.toBe('menu');
    await expect(button.getAttribute('aria-expanded')).resolves.toBe('false');
    expect(await accountMenu().isVisible()).toBe(false);

    await button.click();
    await accountMenu().waitFor({ state: 'visible' });
    await expect(button.getAttribute('aria-expanded')).resolves.toBe('true');
    expect(await labels(accountMenu().getByRole('menuitem'))).toEqual(['Account', 'Sign out']);
    expect((await page.getByTestId('header-role').textContent())?.trim()).toBe('Administrator');
    expect(await page.getByTestId('header-role').isVisible()).toBe(true);

    await heading('Status').click();
    await accountMenu().waitFor({ state: 'hidden' });
    await expect(button.getAttribute('aria-expanded')).resolves.toBe('false');

    await button.click();
    await accountMenu().getByRole('menuitem', { name: 'Account' }).click();
    await page.waitForURL(url('/account'));
    await heading('Account').waitFor({ state: 'visible' });
    expect(await accountMenu().isVisible()).toBe(false);
    expect(problems).toEqual([]);
  });

  it('works the account menu by keyboard (arrows, Escape back to the button), without serious axe findings', async () => {
    await openStatus();
    const button = accountButton(ADMIN.username);
    await button.focus();
    await page.keyboard.press('Enter');
    await accountMenu().waitFor({ state: 'visible' });
    await waitFor(async () => (await focused()) === '|Account');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe('|Sign out');
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe('|Account');
    await page.keyboard.press('ArrowUp');
    expect(await focused()).toBe('|Sign out');
    await page.keyboard.press('Home');
    expect(await focused()).toBe('|Account');

    await page.keyboard.press('Escape');
    await accountMenu().waitFor({ state: 'hidden' });
    expect(await focused()).toContain('account-menu-button|');
    await expect(button.getAttribute('aria-expanded')).resolves.toBe('false');

    // ArrowUp on the closed button opens the menu on its last item.
    await page.keyboard.press('ArrowUp');
    await accountMenu().waitFor({ state: 'visible' });
    await waitFor(async () => (await focused()) === '|Sign out');
    await page.keyboard.press('Escape');
    await accountMenu().waitFor({ state: 'hidden' });
    expect(problems).toEqual([]);
  });

  it('shows the Settings area’s sub-navigation by role, with the active entry marked', async () => {
    await page.goto(url('/settings'));
    await heading('Settings').waitFor({ state: 'visible' });
    const entries = () => labels(settingsNav().getByRole('link'));
    expect(await entries()).toEqual(['Settings', 'Accounts', 'Administration', 'About']);
    await expect(
      settingsNav().getByRole('link', { name: 'Settings' }).getAttribute('aria-current'),
    ).resolves.toBe('page');
    await expect(page.title()).resolves.toBe('Settings · Monitor');

    for (const [name, path, title] of [
      ['Accounts', '/settings/accounts', 'Accounts'],
      ['Administration', '/settings/administration', 'Administration'],
      ['About', '/settings/about', 'About'],
    ] as const) {
      await settingsNav().getByRole('link', { name }).click();
      await page.waitForURL(url(path));
      await heading(title).waitFor({ state: 'visible' });
      await expect(settingsNav().getByRole('link', { name }).getAttribute('aria-current')).resolves.toBe(
        'page',
      );
      await expect(
        settingsNav().getByRole('link', { name: 'Settings' }).getAttribute('aria-current'),
      ).resolves.toBeNull();
      await expect(page.title()).resolves.toBe(`${title} · Monitor`);
      expect(await seriousAxeViolations(page)).toEqual([]);
    }

    await page.goto(url('/settings'));
    await heading('Settings').waitFor({ state: 'visible' });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot('settings-area.png');

    await signInAs(server.url, browser.context, OPERATOR);
    await page.goto(url('/settings'));
    await heading('Settings').waitFor({ state: 'visible' });
    expect(await entries()).toEqual(['Settings', 'Administration', 'About']);
    await page.goto(url('/settings/accounts'));
    await page.waitForURL(url('/'));

    await signInAs(server.url, browser.context, VIEWER);
    await page.goto(url('/settings'));
    await heading('Settings').waitFor({ state: 'visible' });
    expect(await entries()).toEqual(['Settings', 'About']);
    // What the guards gave before the move: the status page.
    for (const path of ['/settings/accounts', '/settings/administration']) {
      await page.goto(url(path));
      await page.waitForURL(url('/'));
      await heading('Status').waitFor({ state: 'visible' });
    }
    await page.goto(url('/settings/about'));
    await heading('About').waitFor({ state: 'visible' });
    expect(problems).toEqual([]);

    await signInAs(server.url, browser.context, ADMIN);
  });

  it('leads the old addresses to their new ones, keeping the query and the fragment', async () => {
    for (const [from, to, title] of [
      ['/accounts', '/settings/accounts', 'Accounts'],
      ['/admin', '/settings/administration', 'Administration'],
      ['/about', '/settings/about', 'About'],
    ] as const) {
      await page.goto(url(`${from}?x=1&y=two#backup`));
      await page.waitForURL(url(`${to}?x=1&y=two#backup`));
      await heading(title).waitFor({ state: 'visible' });
      await page.goto(url(from));
      await page.waitForURL(url(to));
    }
    expect(problems).toEqual([]);
  });

  it('collapses into a Menu button at 360 px: every entry reachable, Escape and a chosen entry close it', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      await openStatus();
      const toggle = page.getByRole('button', { name: 'Menu' });
      await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
      await expect(toggle.getAttribute('aria-controls')).resolves.toBe('phone-menu');
      expect(await mainNav().isVisible()).toBe(false);
      const overflow = () =>
        page.evaluate<number>(
          'document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth',
        );
      expect(await overflow()).toBeLessThanOrEqual(0);

      await toggle.click();
      const panel = page.locator('#phone-menu');
      await panel.waitFor({ state: 'visible' });
      await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
      expect(await labels(mainNav().getByRole('link'))).toEqual([
        'Status',
        'Incidents',
        'Sites',
        'Channels',
        'Status pages',
      ]);
      const entries = [
        ...(await mainNav().getByRole('link').all()),
        panel.getByRole('link', { name: 'Settings' }),
        panel.getByRole('link', { name: 'Account', exact: true }),
        panel.getByRole('button', { name: 'Sign out' }),
        panel.getByRole('combobox'),
      ];
      for (const entry of entries) {
        const box = await entry.boundingBox();
        expect(box).not.toBeNull();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(360);
      }
      expect(await overflow()).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot('nav-phone-menu.png');

      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'hidden' });
      expect(await focused()).toContain('phone-menu-button|');

      await toggle.click();
      await mainNav().getByRole('link', { name: 'Incidents' }).click();
      await page.waitForURL(url('/incidents'));
      await panel.waitFor({ state: 'hidden' });
      await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
      expect(await focused()).toContain('phone-menu-button|');

      await toggle.click();
      await panel.getByRole('link', { name: 'Settings' }).click();
      await page.waitForURL(url('/settings'));
      await heading('Settings').waitFor({ state: 'visible' });
      expect(await settingsNav().isVisible()).toBe(true);
      expect(await overflow()).toBeLessThanOrEqual(0);
      expect(problems).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('shows the menu and sub-navigation in German', async () => {
    await signInAs(server.url, browser.context, OPERATOR);
    const german = await api.put(url('/api/settings'), {
      data: { ui: { language: 'de' } },
      headers: { origin: server.url },
    });
    expect(german.status()).toBe(200);
    try {
      await page.goto(url('/settings'));
      await heading('Einstellungen').waitFor({ state: 'visible' });
      const nav = page.getByRole('navigation', { name: 'Hauptnavigation' });
      expect(await labels(nav.getByRole('link'))).toEqual([
        'Status',
        'Störungen',
        'Standorte',
        'Kanäle',
        'Statusseiten',
      ]);
      const sections = page.getByRole('navigation', { name: 'Bereiche der Einstellungen' });
      expect(await labels(sections.getByRole('link'))).toEqual(['Einstellungen', 'Verwaltung', 'Info']);
      expect((await page.getByTestId('settings-link').textContent())?.trim()).toBe('Einstellungen');
      await page.getByTestId('health-indicator').filter({ hasText: 'Alle Systeme normal' }).waitFor();

      await page.getByRole('button', { name: `Angemeldet als ${OPERATOR.username}` }).click();
      const menu = page.getByRole('menu', { name: 'Kontomenü' });
      await menu.waitFor({ state: 'visible' });
      expect(await labels(menu.getByRole('menuitem'))).toEqual(['Konto', 'Abmelden']);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      expect(problems).toEqual([]);
    } finally {
      await api.put(url('/api/settings'), {
        data: { ui: { language: 'en' } },
        headers: { origin: server.url },
      });
      await signInAs(server.url, browser.context, ADMIN);
    }
  });

  it('signs out from the account menu', async () => {
    await signInAs(server.url, browser.context, VIEWER);
    await openStatus();
    await accountButton(VIEWER.username).click();
    await accountMenu().getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(url('/sign-in'));
    await heading('Sign in').waitFor({ state: 'visible' });
    expect(await page.getByTestId('account-menu-button').count()).toBe(0);
    const session = await api.get(url('/api/session'));
    expect(((await session.json()) as { authenticated: boolean }).authenticated).toBe(false);
    expect(problems).toEqual([]);
    await signInAs(server.url, browser.context, ADMIN);
  });

  it('shows the server’s health in the header, details on About, and turns red when the server stops', async () => {
    const answer = await api.get(url('/healthz'));
    const health = (await answer.json()) as HealthStatus;

    await openStatus();
    const indicator = page.getByTestId('health-indicator');
    await waitFor(async () => (await indicator.getAttribute('data-state')) === 'ok');
    expect((await indicator.textContent())?.trim()).toContain('All systems normal');

    await indicator.click();
    await page.waitForURL(url('/settings/about'));
    const panel = page.getByTestId('health-panel');
    await panel.waitFor({ state: 'visible' });
    const shown = async (testId: string) => (await page.getByTestId(testId).textContent())?.trim();
    expect(await shown('health-status')).toBe('ok');
    expect(await shown('health-version')).toBe(health.version);
    expect(await shown('health-uptime')).toMatch(/\d+ sec|\d+ min/);
    expect(await shown('health-checked-at')).toMatch(/^Checked at \d\d:\d\d:\d\d$/);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(new URL(request.url()).pathname));
    await panel.getByRole('button', { name: 'Check again' }).click();
    await waitFor(() => requests.includes('/healthz'));
    expect(problems).toEqual([]);

    // The status page keeps the live stream open; its dropping triggers a check at once.
    let streaming = false;
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/api/events' && response.status() === 200) streaming = true;
    });
    await openStatus();
    await waitFor(() => streaming);
    await server.stop();
    await waitFor(async () => (await indicator.getAttribute('data-state')) === 'unanswered', 15_000);
    expect((await indicator.textContent())?.trim()).toContain('Server not answering');
    const dot = '[data-testid="health-indicator"] .dot';
    await expect(
      page.evaluate<string>(`getComputedStyle(document.querySelector('${dot}')).backgroundColor`),
    ).resolves.toBe(DANGER);
    expect((await page.locator(dot).textContent())?.trim()).toBe('!');
  });
});
