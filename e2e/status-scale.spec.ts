import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import type { Sensor } from '@monitor/contracts';
import type { APIRequestContext, Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';
import { setUpAdminSession } from './support/session';
import { createSensors, drawnIds, fullyVisibleSensors, scrollsSideways } from './support/status-board';

jest.setTimeout(300_000);

const TOTAL = 330;
/** Far fewer sensor elements than sensors: only those in and near the window are drawn. */
const DRAWN_AT_MOST = 150;

describe('The status page with hundreds of sensors and on a phone (built server, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let api: APIRequestContext;
  let problems: string[];
  let sensors: Sensor[];

  const url = (path: string) => `${server.url}${path}`;
  const board = () => page.getByTestId('sensor-board');
  const setUi = async (ui: Record<string, unknown>) =>
    expect((await api.put(url('/api/settings'), { data: { ui } })).status()).toBe(200);
  const open = async (density: 'cards' | 'list' | 'wall') => {
    await setUi({ density });
    await page.goto(url('/'));
    await board().locator('[data-status]').first().waitFor({ timeout: 20_000 });
    expect(await board().getAttribute('data-density')).toBe(density);
  };

  beforeAll(async () => {
    await mkdir(SCREENSHOTS_DIR, { recursive: true });
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
    // No welcome tour in the way of the measurements.
    expect((await api.post(url('/api/onboarding/tour'), { data: { version: 1 } })).status()).toBe(200);
    sensors = await createSensors(
      api,
      server.url,
      Array.from({ length: TOTAL }, (_, i) => ({
        name: `Node ${String(i + 1).padStart(3, '0')}`,
        type: 'tcp',
        target: `127.0.0.1:9`,
        enabled: false,
        group: i % 2 ? 'Rack A' : 'Rack B',
        tags: [i % 3 ? 'edge' : 'core'],
      })),
    );
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  it('scrolls the page, not a box, and draws only the sensors near the window', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await setUi({ order: 'saved' });
    for (const density of ['cards', 'list', 'wall'] as const) {
      await open(density);
      expect(await page.evaluate<number>('window.scrollY')).toBe(0);
      // Neither the board nor anything around it is a scrolling box.
      const box = await page.evaluate<{ scrollers: string[]; maxHeight: string; scrolls: boolean }>(`(() => {
        const board = document.querySelector('[data-testid="sensor-board"]');
        const scrollers = [];
        for (let element = board; element && element !== document.body; element = element.parentElement) {
          if (/auto|scroll/.test(getComputedStyle(element).overflowY)) scrollers.push(element.tagName);
        }
        return { scrollers, maxHeight: getComputedStyle(board).maxHeight, scrolls: board.scrollHeight > board.clientHeight + 1 };
      })()`);
      expect(box).toEqual({ scrollers: [], maxHeight: 'none', scrolls: false });
      const last = sensors[sensors.length - 1];
      // The wall shows all of them at once.
      if (density === 'wall') continue;
      expect(await page.getByTestId(`sensor-row-${last.id}`).count()).toBe(0);
      expect((await drawnIds(page)).length).toBeLessThanOrEqual(DRAWN_AT_MOST);
      await page.evaluate('window.scrollTo(0, document.scrollingElement.scrollHeight)');
      await waitFor(async () => (await page.evaluate<number>('window.scrollY')) > 0);
      await page.getByTestId(`sensor-row-${last.id}`).waitFor({ timeout: 10_000 });
      expect(await page.getByTestId(`sensor-row-${last.id}`).isVisible()).toBe(true);
      const drawn = await drawnIds(page);
      expect(drawn.length).toBeLessThanOrEqual(DRAWN_AT_MOST);
      expect(drawn).not.toContain(sensors[0].id);
      expect(await seriousAxeViolations(page)).toEqual([]);
    }
    expect(problems).toEqual([]);
  });

  it('brings a highlighted sensor far down the list into view by scrolling the window', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await setUi({ density: 'list', order: 'saved' });
    const target = sensors[250];
    await page.goto(url(`/?highlight=${target.id}`));
    const item = page.locator(`[data-testid="sensor-row-${target.id}"][data-highlighted="true"]`);
    await item.waitFor({ timeout: 20_000 });
    expect(await page.evaluate<number>('window.scrollY')).toBeGreaterThan(0);
    const box = await item.boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height).toBeLessThanOrEqual(800);
    expect(await page.getByTestId('grid-announcement').textContent()).toContain(`${target.name} was added.`);
    expect(problems).toEqual([]);
  });

  it('shows at 1280×800 at least 25 sensors in the list and 300 on the wall without scrolling', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const visible: Record<string, number> = {};
    for (const density of ['cards', 'list', 'wall'] as const) {
      await open(density);
      expect(await page.evaluate<number>('window.scrollY')).toBe(0);
      visible[density] = await fullyVisibleSensors(page);
    }
    console.log(`sensors fully visible at 1280×800: ${JSON.stringify(visible)}`);
    expect(visible['list']).toBeGreaterThanOrEqual(25);
    expect(visible['wall']).toBeGreaterThanOrEqual(300);
    expect(visible['cards']).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('fits a 360 px phone in every density, with the filters in a panel behind a button', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      for (const density of ['cards', 'list', 'wall'] as const) {
        await open(density);
        expect(await scrollsSideways(page)).toBe(false);
        // Every sensor's actions are reachable: its menu button lies inside the window's width.
        if (density !== 'wall') {
          const menus = await page.evaluate<number[]>(
            `[...document.querySelectorAll('[data-testid="sensor-list"] [data-testid="sensor-menu"]')].map((b) => b.getBoundingClientRect().right)`,
          );
          expect(menus.length).toBeGreaterThan(0);
          expect(Math.max(...menus)).toBeLessThanOrEqual(360);
        }
      }
      await open('list');
      const opener = page.getByTestId('filters-open');
      expect(await page.getByTestId('grid-filter-q').isVisible()).toBe(false);
      expect((await opener.textContent())?.trim()).toBe('Filters');
      await opener.click();
      await page.getByTestId('grid-filter-q').waitFor({ state: 'visible' });
      expect(await opener.getAttribute('aria-expanded')).toBe('true');
      await waitFor(async () => (await page.evaluate<string>('document.activeElement.id')) === 'grid-q');
      await page.getByTestId('grid-filter-group').selectOption('Rack A');
      await page.getByTestId('grid-filter-tag').selectOption('core');
      await waitFor(async () => ((await opener.textContent()) ?? '').includes('(2)'));
      expect(await scrollsSideways(page)).toBe(false);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByTestId('grid-filter-q').waitFor({ state: 'hidden' });
      expect(await page.evaluate<string | null>("document.activeElement.getAttribute('data-testid')")).toBe(
        'filters-open',
      );
      expect((await opener.textContent())?.trim()).toBe('Filters (2)');
      const shown = await drawnIds(page);
      // In the saved order, the API's: the sensors were created 40 at a time, so ids need not follow names.
      const listed = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
      const wanted = listed.filter((s) => s.group === 'Rack A' && s.tags.includes('core')).map((s) => s.id);
      expect(shown).toEqual(wanted.slice(0, shown.length));
      await page.getByTestId('grid-filter-q').waitFor({ state: 'hidden' });
      await page.screenshot({ path: join(SCREENSHOTS_DIR, 'status-phone.png') });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(problems).toEqual([]);
  });
});
