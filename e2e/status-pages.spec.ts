import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import type { Sensor, StatusPage, StatusPagesResponse } from '@monitor/contracts';
import type { APIRequestContext, Locator, Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { layoutMisfits } from './support/layout';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';
import { setUpAdminSession } from './support/session';

jest.setTimeout(120_000);

const SENSORS = ['Web shop', 'Payment API', 'Database', 'Mail relay'] as const;
type SensorName = (typeof SENSORS)[number];

describe('Status pages screen (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let api: APIRequestContext;
  let problems: string[];
  const ids = new Map<SensorName, number>();
  /** The page the tests build, once created. */
  let pageId: number;

  const url = (path: string) => `${server.url}${path}`;
  const id = (name: SensorName) => ids.get(name) as number;
  const section = (index: number) => page.getByTestId(`section-${index}`);
  const sensorItem = (index: number, name: SensorName) =>
    section(index)
      .getByTestId('sensor-item')
      .filter({ has: page.getByTestId('sensor-name').getByText(name, { exact: true }) });

  /** The sensors' names of a section as shown, in order. */
  async function shown(index: number): Promise<string[]> {
    return (await section(index).getByTestId('sensor-name').allTextContents()).map((text) => text.trim());
  }

  async function stored(): Promise<StatusPage> {
    const response = await api.get(url(`/api/status-pages/${pageId}`));
    expect(response.status()).toBe(200);
    return (await response.json()) as StatusPage;
  }

  async function write(method: 'post' | 'put' | 'delete', path: string, body?: unknown) {
    return api.fetch(url(path), { method, data: body, headers: { origin: server.url } });
  }

  /** A mouse drag as a person makes it: press on the handle, move in steps, release over `target`. */
  async function drag(handle: Locator, target: Locator, where: 'top' | 'bottom'): Promise<void> {
    await target.scrollIntoViewIfNeeded();
    await handle.scrollIntoViewIfNeeded();
    const from = await handle.boundingBox();
    const to = await target.boundingBox();
    if (!from || !to) throw new Error('drag source or target is not visible');
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 + 12, { steps: 4 });
    const y = where === 'top' ? to.y + 4 : to.y + to.height - 4;
    await page.mouse.move(to.x + to.width / 2, y, { steps: 20 });
    await page.mouse.move(to.x + to.width / 2, y + (where === 'top' ? -1 : 1), { steps: 2 });
    await page.mouse.up();
  }

  /** Refusals the tests provoke (400, 409) are logged by the browser; those are expected. */
  function unexpectedProblems(): string[] {
    return problems.filter(
      (line) => !/Failed to load resource: the server responded with a status of (400|409)/.test(line),
    );
  }

  async function openList(heading = 'Status pages'): Promise<void> {
    await page.goto(url('/status-pages'));
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
  }

  async function openEditor(): Promise<void> {
    await page.goto(url(`/status-pages/${pageId}`));
    await page.getByTestId('page-form').waitFor();
    await page.waitForLoadState('networkidle');
  }

  /** The main navigation's entries in one row at `width` (the header breaks lines elsewhere, never inside it). */
  async function navInOneRow(width: number): Promise<boolean> {
    await page.setViewportSize({ width, height: 800 });
    const tops = await page
      .getByRole('navigation', { name: /^(Main|Hauptnavigation)$/ })
      .first()
      .getByRole('link')
      .evaluateAll((links) => links.map((link) => Math.round(link.getBoundingClientRect().top)));
    return tops.length === 5 && new Set(tops).size === 1;
  }

  async function screenshot(name: string): Promise<void> {
    await mkdir(SCREENSHOTS_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS_DIR, name), fullPage: true });
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
    api = browser.context.request;
    problems = collectProblems(page);
    await setUpAdminSession(server.url, browser.context);
    for (const name of SENSORS) {
      const created = await write('post', '/api/sensors', {
        name,
        type: 'tcp',
        target: '127.0.0.1:9',
        enabled: false,
      });
      expect(created.status()).toBe(201);
      ids.set(name, ((await created.json()) as Sensor).id);
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

  it('is in the main navigation and starts empty, offering administrators to add a page', async () => {
    await openList();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'Status pages' }).getAttribute('aria-current')).resolves.toBe(
      'page',
    );
    const empty = page.getByTestId('status-pages-empty');
    await empty.waitFor();
    await empty.getByRole('link', { name: 'Add status page' }).click();
    await page.waitForURL(url('/status-pages/new'));
    await page.getByRole('heading', { level: 1, name: 'New status page' }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(unexpectedProblems()).toEqual([]);
  });

  it('suggests the address from the title and checks it while it is typed', async () => {
    await page.getByLabel('Title', { exact: true }).fill('Public services');
    const slug = page.getByLabel('Address', { exact: true });
    await expect(slug.inputValue()).resolves.toBe('public-services');
    await slug.fill('Public Services!');
    await page.getByTestId('slug-error').waitFor();
    expect(await page.getByTestId('slug-error').textContent()).toBe(
      'Use only lowercase letters, digits and hyphens.',
    );
    await expect(slug.getAttribute('aria-invalid')).resolves.toBe('true');
    await slug.fill('public-services');
    await page.getByTestId('slug-error').waitFor({ state: 'detached' });
    expect(await page.getByTestId('page-form').textContent()).toContain(
      'The page will be at /status/public-services.',
    );
    // Typing the title again no longer changes an address typed by hand.
    await page.getByLabel('Title', { exact: true }).fill('Public services of ACME');
    await expect(slug.inputValue()).resolves.toBe('public-services');
    expect(unexpectedProblems()).toEqual([]);
  });

  it('creates a page with two sections, orders its sensors by dragging and by the arrow buttons, and saves the order', async () => {
    await page.getByLabel('Description').fill('What is up at ACME.');
    await page.getByRole('button', { name: 'Add section' }).click();
    await section(0).getByLabel('Section title').fill('Websites');
    await page.getByRole('button', { name: 'Add section' }).click();
    await section(1).getByLabel('Section title').fill('Backend');

    const add = async (index: number, names: SensorName[]) => {
      await section(index).getByRole('button', { name: 'Add sensors' }).click();
      await section(index).getByLabel('Find a sensor').fill('');
      for (const name of names)
        await section(index)
          .getByRole('button', { name: `Add ${name}` })
          .click();
      await section(index).getByRole('button', { name: 'Done adding' }).click();
    };
    await add(0, ['Web shop', 'Payment API']);
    // The search narrows the list down.
    await section(1).getByRole('button', { name: 'Add sensors' }).click();
    await section(1).getByLabel('Find a sensor').fill('data');
    await expect(
      section(1)
        .locator('[data-add-sensor]')
        .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-add-sensor'))),
    ).resolves.toEqual(['Database']);
    await section(1).getByRole('button', { name: 'Add Database' }).click();
    await section(1).getByLabel('Find a sensor').fill('mail');
    await section(1).getByRole('button', { name: 'Add Mail relay' }).click();
    await section(1).getByRole('button', { name: 'Done adding' }).click();
    expect(await shown(0)).toEqual(['Web shop', 'Payment API']);
    expect(await shown(1)).toEqual(['Database', 'Mail relay']);

    // Drag within a section: Payment API above Web shop.
    await drag(sensorItem(0, 'Payment API').getByTestId('drag-handle'), sensorItem(0, 'Web shop'), 'top');
    await waitFor(async () => (await shown(0)).join() === 'Payment API,Web shop');
    // Drag into the other section: Mail relay onto Web shop's place.
    await drag(sensorItem(1, 'Mail relay').getByTestId('drag-handle'), sensorItem(0, 'Web shop'), 'top');
    await waitFor(async () => (await shown(0)).join() === 'Payment API,Mail relay,Web shop');
    expect(await shown(1)).toEqual(['Database']);

    // The keyboard: focus stays on the button, so another Enter moves the sensor again.
    await sensorItem(0, 'Payment API').getByRole('button', { name: 'Move Payment API down' }).focus();
    await page.keyboard.press('Enter');
    await waitFor(async () => (await shown(0)).join() === 'Mail relay,Payment API,Web shop');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await shown(0)).join() === 'Mail relay,Web shop,Payment API');
    await expect(
      page.evaluate<string | undefined>(
        "document.activeElement?.querySelector('.visually-hidden')?.textContent",
      ),
    ).resolves.toBe('Move Payment API down');
    await expect(page.getByTestId('sections-announcement').textContent()).resolves.toBe(
      'Payment API is now number 3 in Websites.',
    );
    // Down from the last place moves into the next section, at its start.
    await page.keyboard.press('Enter');
    await waitFor(async () => (await shown(1)).join() === 'Payment API,Database');
    expect(await shown(0)).toEqual(['Mail relay', 'Web shop']);
    await expect(page.getByTestId('sections-announcement').textContent()).resolves.toBe(
      'Payment API is now number 1 in Backend.',
    );

    await page.getByRole('switch', { name: 'Published' }).check();
    await screenshot('status-page-editor.png');
    await page.getByRole('button', { name: 'Create status page' }).click();
    await page.waitForURL(/\/status-pages\/\d+$/);
    pageId = Number(new URL(page.url()).pathname.split('/').pop());
    await page
      .getByTestId('page-status')
      .filter({ hasText: 'The status page Public services of ACME was created.' })
      .waitFor();

    const saved = await stored();
    expect(saved.slug).toBe('public-services');
    expect(saved.description).toBe('What is up at ACME.');
    expect(saved.published).toBe(true);
    expect(saved.sections).toEqual([
      { title: 'Websites', sensors: [id('Mail relay'), id('Web shop')] },
      { title: 'Backend', sensors: [id('Payment API'), id('Database')] },
    ]);

    await page.reload();
    await page.getByTestId('section-1').waitFor();
    expect(await shown(0)).toEqual(['Mail relay', 'Web shop']);
    expect(await shown(1)).toEqual(['Payment API', 'Database']);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(unexpectedProblems()).toEqual([]);
  });

  it('reorders a saved page and turns publishing off and on through the switch', async () => {
    await openEditor();
    await drag(sensorItem(1, 'Database').getByTestId('drag-handle'), sensorItem(1, 'Payment API'), 'top');
    await waitFor(async () => (await shown(1)).join() === 'Database,Payment API');
    const published = page.getByRole('switch', { name: 'Published' });
    await expect(published.isChecked()).resolves.toBe(true);
    await published.uncheck();
    await page.getByRole('button', { name: 'Save status page' }).click();
    await page.getByTestId('page-status').filter({ hasText: 'was saved' }).waitFor();
    let saved = await stored();
    expect(saved.published).toBe(false);
    expect(saved.sections[1].sensors).toEqual([id('Database'), id('Payment API')]);

    await openList();
    const item = page.getByTestId('status-page-public-services');
    expect((await item.getByTestId('published-state').textContent())?.trim()).toBe('Not published');
    expect(await item.getByTestId('page-sensors').textContent()).toBe('4 sensors');
    const open = item.getByRole('link', { name: 'Open the public page Public services of ACME (new tab)' });
    await expect(open.getAttribute('href')).resolves.toBe('/status/public-services');
    await expect(open.getAttribute('target')).resolves.toBe('_blank');

    await openEditor();
    await page.getByRole('switch', { name: 'Published' }).check();
    await page.getByRole('button', { name: 'Save status page' }).click();
    await page.getByTestId('page-status').filter({ hasText: 'was saved' }).waitFor();
    saved = await stored();
    expect(saved.published).toBe(true);
    expect(unexpectedProblems()).toEqual([]);
  });

  it("shows the server's refusal of a duplicate address beside the form", async () => {
    const refusal = await write('post', '/api/status-pages', { slug: 'public-services', title: 'Again' });
    expect(refusal.status()).toBe(409);
    const expected = ((await refusal.json()) as { error: string }).error;

    await page.goto(url('/status-pages/new'));
    await page.getByLabel('Title', { exact: true }).fill('Public services');
    await page.getByRole('button', { name: 'Create status page' }).click();
    const error = page.getByTestId('page-error');
    await error.waitFor();
    expect((await error.textContent())?.trim()).toBe(expected);
    expect(page.url()).toBe(url('/status-pages/new'));
    expect(
      ((await (await api.get(url('/api/status-pages'))).json()) as StatusPagesResponse).status_pages,
    ).toHaveLength(1);
    expect(unexpectedProblems()).toEqual([]);
  });

  it('adds an announcement and deletes it after confirming', async () => {
    await openEditor();
    const announcements = page.getByTestId('announcements');
    await announcements.getByTestId('no-announcements').waitFor();
    await announcements.getByLabel('Title').fill('Payments are slow');
    await announcements.getByLabel('Text').fill('We are looking into it.');
    await announcements.getByLabel('Severity').selectOption('warning');
    await announcements.getByRole('button', { name: 'Publish announcement' }).click();
    await announcements.getByTestId('announcement').filter({ hasText: 'Payments are slow' }).waitFor();
    expect(await announcements.getByTestId('announcement').textContent()).toContain('Warning');
    let saved = await stored();
    expect(saved.announcements.map(({ title, body, severity }) => ({ title, body, severity }))).toEqual([
      { title: 'Payments are slow', body: 'We are looking into it.', severity: 'warning' },
    ]);
    await screenshot('status-page-announcements.png');

    await announcements
      .getByRole('button', { name: 'Delete the announcement Payments are slow', exact: true })
      .first()
      .click();
    await page.locator('#confirm-delete-announcement').click();
    await announcements.getByTestId('no-announcements').waitFor();
    saved = await stored();
    expect(saved.announcements).toEqual([]);
    expect(unexpectedProblems()).toEqual([]);
  });

  it('fits a 360 px wide screen with touch-sized controls, and the header still fits just above the phone layout', async () => {
    try {
      // 730 px: the widest header, with every entry beside the brand, in the narrowest space it gets.
      await page.setViewportSize({ width: 730, height: 740 });
      await openList();
      expect(await layoutMisfits(page, 'list at 730 px', false)).toEqual([]);
      for (const width of [730, 1280, 1920]) expect([width, await navInOneRow(width)]).toEqual([width, true]);
      await page.setViewportSize({ width: 360, height: 740 });
      await openList();
      expect(await layoutMisfits(page, 'list')).toEqual([]);
      await screenshot('status-pages-360.png');
      await openEditor();
      await section(0).getByRole('button', { name: 'Add sensors' }).click();
      expect(await layoutMisfits(page, 'editor')).toEqual([]);
      await screenshot('status-page-editor-360.png');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(unexpectedProblems()).toEqual([]);
  });

  it('speaks German once the account chose it', async () => {
    expect((await write('put', '/api/settings', { ui: { language: 'de' } })).status()).toBe(200);
    try {
      await openList('Statusseiten');
      const nav = page.getByRole('navigation', { name: 'Hauptnavigation' });
      await nav.getByRole('link', { name: 'Statusseiten' }).waitFor();
      expect((await page.getByTestId('published-state').textContent())?.trim()).toBe('Veröffentlicht');
      await openEditor();
      const form = page.getByTestId('page-form');
      await form.getByLabel('Titel', { exact: true }).waitFor();
      await form.getByLabel('Adresse', { exact: true }).waitFor();
      await page.getByRole('switch', { name: 'Veröffentlicht' }).waitFor();
      await page.getByRole('button', { name: 'Abschnitt hinzufügen' }).waitFor();
      await page.getByRole('button', { name: 'Web shop nach oben' }).waitFor();
      await page.getByRole('heading', { name: 'Meldungen' }).waitFor();
      await screenshot('status-page-editor-de.png');
      await page.setViewportSize({ width: 730, height: 740 });
      expect(await layoutMisfits(page, 'German at 730 px', false)).toEqual([]);
      for (const width of [730, 1280, 1920]) expect([width, await navInOneRow(width)]).toEqual([width, true]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
      expect((await write('put', '/api/settings', { ui: { language: 'en' } })).status()).toBe(200);
    }
    expect(unexpectedProblems()).toEqual([]);
  });

  it('deletes a page from the list after confirming', async () => {
    const created = await write('post', '/api/status-pages', { slug: 'old-page', title: 'Old page' });
    expect(created.status()).toBe(201);
    await openList();
    await page.getByRole('button', { name: 'Delete Old page' }).click();
    await page.locator('#confirm-delete-page').click();
    await page.getByTestId('status-page-old-page').waitFor({ state: 'detached' });
    await page
      .getByTestId('status-pages-status')
      .filter({ hasText: 'The status page Old page was deleted.' })
      .waitFor();
    const left = ((await (await api.get(url('/api/status-pages'))).json()) as StatusPagesResponse)
      .status_pages;
    expect(left.map((item) => item.slug)).toEqual(['public-services']);
    await screenshot('status-pages.png');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(unexpectedProblems()).toEqual([]);
  });
});
