import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import type { ApiKeyResponse } from '@monitor/contracts';
import { generate } from 'otplib';
import type { Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';

jest.setTimeout(90_000);

const SCREENSHOTS = SCREENSHOTS_DIR;
const ADMIN = { username: 'admin', password: 'first admin password' } as const;
const VIEWER = { username: 'viewer1', password: 'viewer password 1' } as const;
const RECOVERY_CODE = /^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/;

/** Chromium logs every HTTP error answer of a fetch; a test that provokes one expects exactly that line. */
const httpErrorLine = (status: number) =>
  new RegExp(`^console: Failed to load resource: the server responded with a status of ${status}\\b`);

describe('Accounts, sign-in, roles and the second factor (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let problems: string[];
  let secret = '';
  let recoveryCodes: string[] = [];

  const url = (path: string) => `${server.url}${path}`;
  const nav = () => page.getByRole('navigation', { name: 'Main' });
  const text = async (testId: string) => (await page.getByTestId(testId).textContent())?.trim();
  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });

  async function screenshot(name: string): Promise<void> {
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, name), fullPage: true });
  }

  async function expectAccessible(): Promise<void> {
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  /** Fills the password step of /sign-in and submits it. */
  async function submitPassword(account: { username: string; password: string }): Promise<void> {
    await heading('Sign in').waitFor({ state: 'visible' });
    await page.getByLabel('Username').fill(account.username);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Opens the account menu in the header (on phones: the Menu panel, which holds its items). */
  async function openAccountMenu(): Promise<void> {
    const phoneMenu = page.getByTestId('phone-menu-button');
    if (await phoneMenu.isVisible()) await phoneMenu.click();
    else await page.getByTestId('account-menu-button').click();
  }

  async function signOut(): Promise<void> {
    await openAccountMenu();
    await page
      .getByRole('menuitem', { name: 'Sign out' })
      .or(page.getByRole('button', { name: 'Sign out' }))
      .click();
    await page.waitForURL(url('/sign-in'));
    await heading('Sign in').waitFor({ state: 'visible' });
    expect(await page.getByTestId('header-username').count()).toBe(0);
  }

  async function expectSignedInAs(username: string, role: string): Promise<void> {
    await page.getByTestId('header-username').waitFor({ state: 'attached' });
    expect(await text('header-username')).toBe(username);
    expect(await text('header-role')).toBe(role);
  }

  /** The id of the focused element (page-side code is a string: no DOM types here). */
  const focusedId = () => page.evaluate<string | undefined>('document.activeElement?.id');

  async function navLabels(): Promise<string[]> {
    return (await nav().getByRole('link').allTextContents()).map((label) => label.trim());
  }

  /** The items of the account menu (opened and closed again). */
  async function accountMenuItems(): Promise<string[]> {
    await page.getByTestId('account-menu-button').click();
    const menu = page.getByRole('menu', { name: 'Account menu' });
    await menu.waitFor({ state: 'visible' });
    const items = (await menu.getByRole('menuitem').allTextContents()).map((label) => label.trim());
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    return items;
  }

  /** The entries of the Settings area's sub-navigation, read on /settings. */
  async function settingsLabels(): Promise<string[]> {
    await page.goto(url('/settings'));
    const sections = page.getByRole('navigation', { name: 'Settings sections' });
    await sections.getByRole('link', { name: 'About' }).waitFor();
    return (await sections.getByRole('link').allTextContents()).map((label) => label.trim());
  }

  async function openAccountPage(): Promise<void> {
    await openAccountMenu();
    await page.getByRole('menuitem', { name: 'Account', exact: true }).click();
  }

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser({
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = browser.page;
    problems = collectProblems(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    problems.length = 0;
  });

  it('sends a fresh installation to /setup, creates the administrator and signs it in', async () => {
    await page.goto(url('/'));
    await page.waitForURL(url('/setup'));
    await heading('Set up Monitor').waitFor({ state: 'visible' });
    await expect(page.title()).resolves.toBe('Set up Monitor · Monitor');
    expect(await nav().count()).toBe(0);

    // Checked in the browser before anything is sent.
    await page.getByRole('button', { name: 'Create the account and sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Enter a username.' }).waitFor({ state: 'visible' });
    await waitFor(async () => (await focusedId()) === 'setup-username');

    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByLabel('Repeat the password').fill('something else');
    await page.getByRole('button', { name: 'Create the account and sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The two passwords differ.' }).waitFor();
    await page.getByLabel('Repeat the password').fill(ADMIN.password);
    await expect(page.getByRole('radio', { name: /Simple/ }).isChecked()).resolves.toBe(true);
    await expectAccessible();
    await screenshot('setup.png');

    await page.getByRole('button', { name: 'Create the account and sign in' }).click();
    await page.waitForURL(url('/'));
    await heading('Status').waitFor({ state: 'visible' });
    await expectSignedInAs(ADMIN.username, 'Administrator');
    expect(await navLabels()).toEqual(['Status', 'Incidents', 'Sites', 'Channels', 'Status pages']);
    expect(await accountMenuItems()).toEqual(['Account', 'Sign out']);

    // Signed in, the signed-out pages lead home.
    for (const path of ['/setup', '/sign-in']) {
      await page.goto(url(path));
      await page.waitForURL(url('/'));
      await heading('Status').waitFor({ state: 'visible' });
    }
    expect(problems).toEqual([]);
  });

  it('sets up the second factor on /account and shows the eight recovery codes once', async () => {
    await openAccountPage();
    await page.waitForURL(url('/account'));
    await heading('Account').waitFor({ state: 'visible' });
    expect(await text('account-username')).toBe(ADMIN.username);
    await expectAccessible();

    const qrResponse = page.waitForResponse((response) => response.url().includes('/api/me/totp/qr?t='));
    await page.getByRole('button', { name: 'Set up' }).click();
    await page.getByTestId('totp-secret').waitFor({ state: 'visible' });
    secret = (await text('totp-secret')) ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{16,}=*$/);
    const qr = page.getByRole('img', { name: 'QR code that adds Monitor to an authenticator app' });
    await qr.waitFor({ state: 'visible' });
    const qrAnswer = await qrResponse;
    expect(qrAnswer.status()).toBe(200);
    expect(qrAnswer.headers()['content-type']).toBe('image/png');
    await qrAnswer.finished();
    type Image = { complete: boolean; naturalWidth: number };
    for (
      let tries = 0;
      !(await qr.evaluate((image: Image) => image.complete && image.naturalWidth > 0));
      tries++
    ) {
      if (tries > 50) throw new Error('the QR code image did not load');
      await page.waitForTimeout(100);
    }
    await waitFor(async () => (await focusedId()) === 'totp-code');
    await expectAccessible();
    await screenshot('account-security.png');

    await page.getByLabel('Code from the app').fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Confirm' }).click();

    const list = page.getByTestId('recovery-codes');
    await list.waitFor({ state: 'visible' });
    recoveryCodes = (await list.getByRole('listitem').allTextContents()).map((code) => code.trim());
    expect(recoveryCodes).toHaveLength(8);
    for (const code of recoveryCodes) expect(code).toMatch(RECOVERY_CODE);
    expect(new Set(recoveryCodes).size).toBe(8);
    await page.getByText('These codes are shown only once.').waitFor({ state: 'visible' });
    await expectAccessible();

    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.getByRole('button', { name: 'Copy all' }).click();
    await page.getByRole('status').filter({ hasText: 'The eight codes are on the clipboard.' }).waitFor();
    await expect(page.evaluate<string>('navigator.clipboard.readText()')).resolves.toBe(
      `${recoveryCodes.join('\n')}\n`,
    );

    await page.getByRole('button', { name: 'I have saved them' }).click();
    await list.waitFor({ state: 'detached' });
    expect(await text('recovery-codes-left')).toBe('8');
    expect(problems).toEqual([]);
  });

  it('signs out, then in with the password and a code from the authenticator app', async () => {
    await signOut();
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await expectAccessible();
    await screenshot('sign-in.png');
    await page.getByRole('button', { name: 'Sign in' }).click();

    await heading('Second factor').waitFor({ state: 'visible' });
    await waitFor(async () => (await focusedId()) === 'sign-in-code');
    // The current time step was spent confirming the set-up; the next one is within the allowed drift.
    const code = await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
    await page.getByLabel('Code or recovery code').fill(code);
    await expectAccessible();
    await screenshot('sign-in-code.png');
    await page.getByRole('button', { name: 'Verify' }).click();

    await page.waitForURL(url('/'));
    await heading('Status').waitFor({ state: 'visible' });
    await expectSignedInAs(ADMIN.username, 'Administrator');
    expect(problems).toEqual([]);
  });

  it('after a refused code asks for the password again, then signs in with a recovery code, which is then used up', async () => {
    await signOut();
    await submitPassword(ADMIN);
    await heading('Second factor').waitFor({ state: 'visible' });
    // A challenge takes one try: a wrong code sends the user back to the password.
    await page.getByLabel('Code or recovery code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('status').filter({ hasText: 'The code was not accepted.' }).waitFor();
    await submitPassword(ADMIN);
    await heading('Second factor').waitFor({ state: 'visible' });
    await page.getByLabel('Code or recovery code').fill(recoveryCodes[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(url('/'));
    await expectSignedInAs(ADMIN.username, 'Administrator');

    await openAccountPage();
    await page.getByTestId('recovery-codes-left').waitFor({ state: 'visible' });
    expect(await text('recovery-codes-left')).toBe('7');
    // The refused code's 401, and nothing else.
    expect(problems.filter((line) => !httpErrorLine(401).test(line))).toEqual([]);
    expect(problems).toHaveLength(1);
    problems.length = 0;
  });

  it('lets the administrator create a viewer account on /settings/accounts', async () => {
    await page.getByTestId('settings-link').click();
    await page
      .getByRole('navigation', { name: 'Settings sections' })
      .getByRole('link', { name: 'Accounts' })
      .click();
    await page.waitForURL(url('/settings/accounts'));
    await heading('Accounts').waitFor({ state: 'visible' });
    const table = page.getByTestId('accounts-table');
    await table.waitFor({ state: 'visible' });
    await page.getByTestId(`account-row-${ADMIN.username}`).waitFor();

    const form = page.getByTestId('create-account-form');
    await form.getByLabel('Username').fill(VIEWER.username);
    await form.getByLabel('Password').fill(VIEWER.password);
    await form.getByLabel('Role').selectOption('viewer');
    await form.getByRole('button', { name: 'Create account' }).click();

    const row = page.getByTestId(`account-row-${VIEWER.username}`);
    await row.waitFor({ state: 'visible' });
    await page
      .getByRole('status')
      .filter({ hasText: `The account ${VIEWER.username} (viewer) was created.` })
      .waitFor();
    await expect(row.getByLabel(`Role of ${VIEWER.username}`).inputValue()).resolves.toBe('viewer');
    expect((await row.getByRole('cell').allTextContents()).map((cell) => cell.trim())).toEqual([
      expect.any(String),
      'Active',
      'Off',
      '—',
      'Never',
      expect.stringContaining('Reset password'),
    ]);
    const adminCells = await page
      .getByTestId(`account-row-${ADMIN.username}`)
      .getByRole('cell')
      .allTextContents();
    expect(adminCells[2]?.trim()).toBe('On');
    expect(adminCells[3]?.trim()).toBe('7');
    await expect(form.getByLabel('Username').inputValue()).resolves.toBe('');

    await expectAccessible();
    await screenshot('accounts.png');
    expect(problems).toEqual([]);
  });

  it('shows a viewer no Accounts entry and keeps /settings/accounts out of reach', async () => {
    await signOut();
    await submitPassword(VIEWER);
    await page.waitForURL(url('/'));
    await expectSignedInAs(VIEWER.username, 'Viewer');
    expect(await navLabels()).toEqual(['Status', 'Incidents', 'Sites', 'Channels', 'Status pages']);
    expect(await settingsLabels()).toEqual(['Settings', 'About']);

    await page.goto(url('/settings/accounts'));
    await page.waitForURL(url('/'));
    await heading('Status').waitFor({ state: 'visible' });
    expect(await heading('Accounts').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('sends a signed-out deep link to sign-in and back to the page afterwards', async () => {
    await signOut();
    await page.goto(url('/account'));
    await page.waitForURL(/\/sign-in\?next=(%2F|\/)account$/);
    await submitPassword(VIEWER);
    await page.waitForURL(url('/account'));
    await heading('Account').waitFor({ state: 'visible' });
    expect(await text('account-username')).toBe(VIEWER.username);
    expect(await text('account-role')).toBe('Viewer');
    expect(problems).toEqual([]);
  });

  it('returns to sign-in, remembering the page, when the session ends under a signed-in page', async () => {
    await heading('Account').waitFor({ state: 'visible' });
    await browser.context.clearCookies();
    const form = page.getByTestId('password-form');
    await form.getByLabel('Current password').fill(VIEWER.password);
    await form.getByLabel('New password', { exact: true }).fill('another password 1');
    await form.getByLabel('Repeat the new password').fill('another password 1');
    await form.getByRole('button', { name: 'Change password' }).click();

    await page.waitForURL(/\/sign-in\?next=(%2F|\/)account$/);
    await heading('Sign in').waitFor({ state: 'visible' });
    expect(await page.getByTestId('header-username').count()).toBe(0);
    await submitPassword(VIEWER);
    await page.waitForURL(url('/account'));
    expect(problems.filter((line) => !httpErrorLine(401).test(line))).toEqual([]);
    expect(problems).toHaveLength(1);
  });

  it("shows the server's refusals verbatim", async () => {
    await signOut();
    await submitPassword({ username: ADMIN.username, password: 'not the password' });
    await page.getByRole('alert').filter({ hasText: 'invalid username or password' }).waitFor();
    expect(page.url()).toBe(url('/sign-in'));

    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Second factor').waitFor({ state: 'visible' });
    await page.getByLabel('Code or recovery code').fill(recoveryCodes[1]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(url('/'));

    await page.goto(url('/settings/accounts'));
    const adminRow = page.getByTestId(`account-row-${ADMIN.username}`);
    await adminRow.getByRole('button', { name: `Delete ${ADMIN.username}` }).click();
    await page.getByText(`Delete the account ${ADMIN.username} and its recovery codes?`).waitFor();
    await waitFor(async () => (await focusedId()) === 'confirm-delete');
    await page.locator('#confirm-delete').click();
    await page.getByRole('alert').filter({ hasText: 'you cannot delete your own account' }).waitFor();

    await adminRow.getByLabel(`Role of ${ADMIN.username}`).selectOption('viewer');
    await page
      .getByRole('alert')
      .filter({ hasText: 'the last active administrator cannot be demoted' })
      .waitFor();
    await expect(adminRow.getByLabel(`Role of ${ADMIN.username}`).inputValue()).resolves.toBe('admin');

    expect(
      problems.filter((line) => !httpErrorLine(401).test(line) && !httpErrorLine(409).test(line)),
    ).toEqual([]);
  });

  it('explains on /account that the API key belongs to no account', async () => {
    // Still signed in as the administrator: the context's request API shares the session cookie.
    const created = await browser.context.request.post(url('/api/api-key'));
    expect(created.ok()).toBe(true);
    const { api_key: apiKey } = (await created.json()) as ApiKeyResponse;
    await browser.context.clearCookies();
    await browser.context.setExtraHTTPHeaders({ 'X-API-Key': apiKey });
    try {
      await page.goto(url('/account'));
      await page.getByTestId('account-api-key').waitFor({ state: 'visible' });
      await expectSignedInAs('API key', 'Administrator');
      expect(await accountMenuItems()).toEqual(['Account']);
      expect(await page.getByTestId('password-form').count()).toBe(0);
      expect(await navLabels()).toEqual(['Status', 'Incidents', 'Sites', 'Channels', 'Status pages']);
      expect(await settingsLabels()).toEqual(['Settings', 'Accounts', 'Administration', 'About']);
    } finally {
      await browser.context.setExtraHTTPHeaders({});
    }

    await page.goto(url('/account'));
    await page.waitForURL(/\/sign-in\?next=(%2F|\/)account$/);
    await submitPassword(ADMIN);
    await page.getByLabel('Code or recovery code').fill(recoveryCodes[2]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(url('/account'));
    expect(await text('recovery-codes-left')).toBe('5');
    expect(problems).toEqual([]);
  });

  it('fits a 360 px wide screen', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      for (const path of ['/settings/accounts', '/account', '/']) {
        await page.goto(url(path));
        await page.getByTestId('header-username').waitFor({ state: 'attached' });
        await page.locator('h1').waitFor({ state: 'visible' });
        if (path === '/settings/accounts') await page.getByTestId('accounts-table').waitFor();
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth');
        expect({ path, overflow }).toEqual({ path, overflow: 360 });
      }
      await signOut();
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(overflow).toBe(360);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(problems).toEqual([]);
  });
});
