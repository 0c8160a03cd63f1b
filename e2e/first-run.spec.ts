import { rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';
import { ADMIN, setUpAdminSession, signInAs } from './support/session';

jest.setTimeout(120_000);

const VIEWER = { username: 'watcher', password: 'viewer password 1' } as const;
const OPERATOR = { username: 'oncall', password: 'operator password 1' } as const;
const EXPLAINED =
  'A sensor checks one website, server, DNS name, container or device at a regular interval and tells you when it stops answering.';

describe('First run: from an empty status page to a first sensor (built server, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let problems: string[];
  let closeTarget: () => Promise<void>;
  let targetPort = 0;
  let createdId = 0;

  const url = (path: string) => `${server.url}${path}`;
  const api = () => browser.context.request;

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = browser.page;
    problems = collectProblems(page);
    await setUpAdminSession(server.url, browser.context);

    const target = createHttpServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetPort = (target.address() as AddressInfo).port;
    closeTarget = () => new Promise<void>((resolve) => target.close(() => resolve()));
  });

  afterAll(async () => {
    await browser?.close();
    await closeTarget?.();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    problems.length = 0;
  });

  it('shows a fresh installation’s administrator the empty state with both actions, and the tour points at them', async () => {
    await page.goto(url('/'));
    const empty = page.getByTestId('sensors-empty');
    await empty.waitFor();
    expect(await empty.getByText('No sensors yet.').count()).toBe(1);
    expect((await page.getByTestId('sensors-explained').textContent())?.trim()).toBe(EXPLAINED);
    await page.getByRole('link', { name: 'Add your first sensor' }).waitFor();
    await page.getByRole('button', { name: 'Load sample data' }).waitFor();
    await page.getByRole('link', { name: 'Add sensor', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Add sensor', exact: true }).getAttribute('href')).toBe(
      '/sensors/new',
    );

    const tour = page.getByTestId('tour');
    await tour.waitFor();
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/first-run-empty.png`, fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);

    await tour.getByRole('button', { name: 'Next' }).click();
    await tour.getByRole('heading', { name: 'Add a sensor' }).waitFor();
    await waitFor(async () =>
      (await page.getByTestId('add-sensor').getAttribute('class'))!.includes('tour-target'),
    );
    await tour.getByRole('button', { name: 'Next' }).click();
    await tour.getByRole('heading', { name: 'Your first sensors' }).waitFor();
    expect(await tour.textContent()).toContain('Load sample data');
    await waitFor(async () => (await empty.getAttribute('class'))!.includes('tour-target'));
    expect(await page.getByTestId('add-sensor').getAttribute('class')).not.toContain('tour-target');
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/first-run-tour.png` });
    await tour.getByRole('button', { name: 'Skip the tour' }).click();
    await tour.waitFor({ state: 'detached' });
    expect(await empty.getAttribute('class')).not.toContain('tour-target');
    expect(problems).toEqual([]);
  });

  it('opens the editor with n, but not while typing in a field or with a modifier', async () => {
    await page.goto(url('/'));
    await page.getByTestId('sensors-empty').waitFor();
    const search = page.locator('#global-search');
    await search.click();
    await page.keyboard.press('n');
    await expect(search.inputValue()).resolves.toBe('n');
    await search.fill('');
    await page.locator('h1').click();
    await page.keyboard.press('Control+n');
    await page.waitForTimeout(300);
    expect(new URL(page.url()).pathname).toBe('/');

    await page.keyboard.press('n');
    await page.waitForURL(url('/sensors/new'));
    await page.getByRole('heading', { level: 1, name: 'New sensor' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('leads from "Add your first sensor" to the editor and back to the status page with the new sensor marked', async () => {
    await page.goto(url('/'));
    await page.getByRole('link', { name: 'Add your first sensor' }).click();
    await page.waitForURL(url('/sensors/new'));
    await page.getByRole('heading', { level: 1, name: 'New sensor' }).waitFor();
    await page.getByLabel('Type', { exact: true }).selectOption('http');
    await page.getByLabel('Name', { exact: true }).fill('My first site');
    await page.locator('#sensor-target').fill(`http://127.0.0.1:${targetPort}/`);
    await page.getByRole('button', { name: 'Create sensor' }).click();

    await page.waitForURL(/\/\?highlight=\d+$/);
    createdId = Number(new URL(page.url()).searchParams.get('highlight'));
    const card = page.getByTestId(`sensor-row-${createdId}`);
    await card.waitFor();
    expect(await card.getAttribute('data-sensor-name')).toBe('My first site');
    expect(await card.getAttribute('data-highlighted')).toBe('true');
    // Marked with words, not colour alone, and told to screen readers.
    expect((await card.getByTestId('sensor-added').textContent())?.trim()).toBe('Just added');
    await waitFor(
      async () =>
        (await page.getByTestId('grid-announcement').textContent())?.trim() === 'My first site was added.',
    );
    const box = (await card.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(900);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/first-run-highlight.png` });
    // The mark is for a moment only.
    await card.getByTestId('sensor-added').waitFor({ state: 'detached', timeout: 15_000 });
    expect(await card.getAttribute('data-highlighted')).toBeNull();
    expect(problems).toEqual([]);
  });

  it('shows the empty state in German', async () => {
    expect((await api().delete(url(`/api/sensors/${createdId}`))).status()).toBeLessThan(300);
    expect((await api().put(url('/api/settings'), { data: { ui: { language: 'de' } } })).status()).toBe(200);
    try {
      await page.goto(url('/'));
      await page.getByRole('link', { name: 'Ersten Sensor anlegen' }).waitFor();
      await page.getByRole('button', { name: 'Beispieldaten laden' }).waitFor();
      await page.getByRole('link', { name: 'Sensor anlegen', exact: true }).waitFor();
      expect(await page.getByTestId('sensors-explained').textContent()).toContain(
        'Ein Sensor prüft in regelmäßigen Abständen',
      );
      expect(await page.getByTestId('sensors-empty').textContent()).not.toContain('No sensors yet');
    } finally {
      await api().put(url('/api/settings'), { data: { ui: { language: 'en' } } });
    }
    expect(problems).toEqual([]);
  });

  it('fills the grid with "Load sample data"', async () => {
    await page.goto(url('/'));
    await page.getByRole('button', { name: 'Load sample data' }).click();
    await page.getByTestId('sensor-board').waitFor();
    await page.locator('[data-testid^="sensor-row-"]').first().waitFor();
    await expect(page.getByTestId('sensors-empty').count()).resolves.toBe(0);
    const sensors = (await (await api().get(url('/api/sensors'))).json()) as unknown[];
    expect(sensors.length).toBeGreaterThan(0);
    await page.getByTestId('add-sensor').waitFor();
    expect(problems).toEqual([]);
  });

  it('offers viewers and operators no Add action and no sample-data button, only the explanation', async () => {
    expect((await api().delete(url('/api/examples'))).status()).toBeLessThan(300);
    expect(((await (await api().get(url('/api/sensors'))).json()) as unknown[]).length).toBe(0);
    for (const [account, role] of [
      [VIEWER, 'viewer'],
      [OPERATOR, 'operator'],
    ] as const) {
      const created = await api().post(url('/api/users'), { data: { ...account, role } });
      expect(created.status()).toBeLessThan(300);
    }
    for (const account of [VIEWER, OPERATOR]) {
      await signInAs(server.url, browser.context, account);
      await page.goto(url('/'));
      await page.getByTestId('sensors-ask-admin').waitFor();
      expect((await page.getByTestId('sensors-explained').textContent())?.trim()).toBe(EXPLAINED);
      await expect(page.getByTestId('add-sensor').count()).resolves.toBe(0);
      await expect(page.getByTestId('add-first-sensor').count()).resolves.toBe(0);
      await expect(page.getByTestId('load-samples').count()).resolves.toBe(0);
      await expect(page.getByRole('button', { name: 'Load sample data' }).count()).resolves.toBe(0);
      await page.locator('h1').click();
      await page.keyboard.press('n');
      await page.waitForTimeout(300);
      expect(new URL(page.url()).pathname).toBe('/');
      if (account === VIEWER) {
        await page.getByTestId('tour').waitFor();
        await page.screenshot({ path: `${SCREENSHOTS_DIR}/first-run-viewer.png`, fullPage: true });
        expect(await seriousAxeViolations(page)).toEqual([]);
      }
    }
    await signInAs(server.url, browser.context, ADMIN);
    expect(problems).toEqual([]);
  });
});
