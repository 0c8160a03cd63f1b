import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import type { Sensor } from '@monitor/contracts';
import type { APIRequestContext, Page, Request } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { setUpAdminSession, signInAs } from './support/session';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';

jest.setTimeout(120_000);

const SCREENSHOTS = SCREENSHOTS_DIR;
const VIEWER = { username: 'mapreader', password: 'viewer password 1' } as const;
/** A third-party tile server on a port where nothing listens: the browser tries it and fails, locally. */
const DEAD_TILES = 'http://127.0.0.1:9/{z}/{x}/{y}.png';
const DEAD_TILE_SRC = /^http:\/\/127\.0\.0\.1:9\/\d+\/-?\d+\/-?\d+\.png$/;

describe('Sites page and map (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let api: APIRequestContext;
  let problems: string[];
  /** Every URL the page requested since the last reset. */
  let requested: string[];
  /** A sensor of the user's, attached to sites along the way. */
  let sensor: Sensor;

  const url = (path: string) => `${server.url}${path}`;
  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
  const site = (name: string) => page.getByTestId(`site-${name}`);
  const markers = () => page.locator('app-site-map .site-marker-label');
  const countriesRequested = () => requested.some((entry) => entry.endsWith('/map/countries-110m.json'));

  /** The server's `{error}` for a request, to compare with what the page shows. */
  async function refusal(method: 'post' | 'put' | 'delete', path: string, body?: unknown): Promise<string> {
    const response = await api.fetch(url(path), { method, data: body, headers: { origin: server.url } });
    expect(response.status()).toBeGreaterThanOrEqual(400);
    return ((await response.json()) as { error: string }).error;
  }

  async function openSites(): Promise<void> {
    requested = [];
    await page.goto(url('/sites'));
    await heading('Sites').waitFor({ state: 'visible' });
    await page.getByTestId('site-map').waitFor({ state: 'visible' });
  }

  /** The bundled coastlines are drawn as SVG paths. */
  async function coastlinesDrawn(): Promise<void> {
    await page.locator('app-site-map path.map-land').first().waitFor({ state: 'attached' });
  }

  /** No request left 127.0.0.1 (data: and blob: URLs stay in the page). */
  function expectOnlyLocalRequests(): void {
    const elsewhere = requested.filter(
      (entry) => !/^(data|blob):/.test(entry) && new URL(entry).hostname !== '127.0.0.1',
    );
    expect(elsewhere).toEqual([]);
  }

  /**
   * Tile requests to the dead local port fail, and the refusals this test provokes (400, 409) are
   * logged by the browser; those are expected, nothing else is.
   */
  function unexpectedProblems(): string[] {
    return problems.filter(
      (line) =>
        !/Failed to load resource: (net::ERR_(CONNECTION_REFUSED|UNSAFE_PORT)|the server responded with a status of (400|409))/.test(
          line,
        ),
    );
  }

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = browser.page;
    api = browser.context.request;
    problems = collectProblems(page);
    requested = [];
    page.on('request', (request: Request) => requested.push(request.url()));
    await setUpAdminSession(server.url, browser.context);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    problems.length = 0;
  });

  it('creates a site with coordinates and one without; only the first is a marker; coastlines need no tiles', async () => {
    await openSites();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'Sites' }).getAttribute('aria-current')).resolves.toBe('page');
    await coastlinesDrawn();
    expect(await page.locator('app-site-map img.leaflet-tile').count()).toBe(0);

    const form = page.getByTestId('new-site-form');
    await form.getByLabel('Name').fill('Berlin office');
    await form.getByLabel('Latitude').fill('52.52');
    await form.getByLabel('Longitude').fill('13.405');
    await form.getByRole('button', { name: 'Create site' }).click();
    await site('Berlin office').waitFor({ state: 'visible' });
    await page
      .getByTestId('sites-status')
      .filter({ hasText: 'The site Berlin office was created.' })
      .waitFor();

    await form.getByLabel('Name').fill('Home lab');
    await form.getByLabel('Kind').selectOption('external');
    await form.getByRole('button', { name: 'Create site' }).click();
    await site('Home lab').waitFor({ state: 'visible' });
    expect(await site('Home lab').getByTestId('site-coordinates').textContent()).toBe(
      'None (not on the map)',
    );
    expect(await site('Home lab').textContent()).toContain('External');

    await waitFor(async () => (await markers().count()) === 1);
    expect((await markers().first().textContent())?.trim()).toBe('Berlin office · 0 sensors');
    expect((await page.getByTestId('map-summary').textContent())?.trim()).toBe(
      '1 site is drawn; 1 site has no coordinates and is only listed.',
    );

    // Latitude without longitude: the server's 400, verbatim.
    const expected = await refusal('post', '/api/sites', { name: 'Half placed', lat: 10 });
    await form.getByLabel('Name').fill('Half placed');
    await form.getByLabel('Latitude').fill('10');
    await form.getByRole('button', { name: 'Create site' }).click();
    await waitFor(async () => (await form.getByRole('alert').textContent())?.trim() === expected);
    expect(await site('Half placed').count()).toBe(0);

    expectOnlyLocalRequests();
    expect(unexpectedProblems()).toEqual([]);
  });

  it('renames a site and moves another onto the map', async () => {
    await site('Berlin office').getByRole('button', { name: 'Edit Berlin office' }).click();
    const edit = page.getByTestId('edit-site-form');
    await edit.getByLabel('Name').fill('Berlin HQ');
    await edit.getByRole('button', { name: 'Save Berlin office' }).click();
    await site('Berlin HQ').waitFor({ state: 'visible' });
    expect(await site('Berlin office').count()).toBe(0);
    await page
      .getByTestId('sites-status')
      .filter({ hasText: 'The site Berlin office is now Berlin HQ.' })
      .waitFor();
    await waitFor(async () => (await markers().first().textContent())?.includes('Berlin HQ') ?? false);

    await site('Home lab').getByRole('button', { name: 'Edit Home lab' }).click();
    await edit.getByLabel('Latitude').fill('52.37');
    await edit.getByLabel('Longitude').fill('4.9');
    await edit.getByRole('button', { name: 'Save Home lab' }).click();
    await waitFor(
      async () => (await site('Home lab').getByTestId('site-coordinates').textContent()) === '52.37, 4.9',
    );
    await waitFor(async () => (await markers().count()) === 2);
    expect(unexpectedProblems()).toEqual([]);
  });

  it('deletes a site with a sensor only after the 409, leaving the sensor without a site', async () => {
    const created = await api.post(url('/api/sensors'), {
      data: { name: 'Office printer', type: 'tcp', target: '127.0.0.1:9', site: 'Berlin HQ', enabled: false },
      headers: { origin: server.url },
    });
    expect(created.status()).toBe(201);
    sensor = (await created.json()) as Sensor;
    const expected = await refusal('delete', `/api/sites/${encodeURIComponent('Berlin HQ')}`);
    expect(expected).toContain('Berlin HQ');

    await openSites();
    expect(await site('Berlin HQ').getByTestId('site-sensors').textContent()).toBe('1 sensor');
    await site('Berlin HQ').getByRole('button', { name: 'Delete Berlin HQ' }).click();
    await page.locator('#confirm-delete-site').click();
    const conflict = page.getByTestId('delete-conflict');
    await conflict.waitFor({ state: 'visible' });
    expect((await conflict.getByRole('alert').textContent())?.replace(/^\s*!\s*/, '').trim()).toBe(expected);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await conflict.getByRole('button', { name: 'Delete and leave its 1 sensor without a site' }).click();
    await site('Berlin HQ').waitFor({ state: 'detached' });
    await page.getByTestId('sites-status').filter({ hasText: 'its sensors have no site now' }).waitFor();
    const after = (await (await api.get(url(`/api/sensors/${sensor.id}`))).json()) as Sensor;
    expect(after.site).toBe('');
    await waitFor(async () => (await markers().count()) === 1);
    expect(unexpectedProblems()).toEqual([]);
  });

  it('loads the borders and names file only while borders are on', async () => {
    const paris = await api.post(url('/api/sites'), {
      data: { name: 'Paris edge', kind: 'external', lat: 48.86, lon: 2.35 },
      headers: { origin: server.url },
    });
    expect(paris.status()).toBe(201);
    const moved = await api.put(url(`/api/sensors/${sensor.id}`), {
      data: { site: 'Home lab' },
      headers: { origin: server.url },
    });
    expect(moved.status()).toBe(200);

    // Borders are on by default: the countries file is loaded and drawn.
    await openSites();
    await coastlinesDrawn();
    await waitFor(countriesRequested);
    await page.locator('app-site-map path.map-border').first().waitFor({ state: 'attached' });
    expect(await page.locator('app-site-map .map-country-name').count()).toBeGreaterThan(100);

    const settings = page.getByTestId('map-settings-form');
    await settings.getByLabel('Country borders and names').uncheck();
    await settings.getByRole('button', { name: 'Save map settings' }).click();
    await page
      .getByTestId('map-settings-status')
      .filter({ hasText: 'The map settings were saved.' })
      .waitFor();
    await waitFor(async () => (await page.locator('app-site-map path.map-border').count()) === 0);

    // Off: a fresh page never asks for the file, and still draws the coastlines.
    await openSites();
    await coastlinesDrawn();
    // The map asks for both files as soon as it starts; give a late request time to show up.
    await new Promise((resolve) => setTimeout(resolve, 750));
    expect(countriesRequested()).toBe(false);
    expect(requested.some((entry) => entry.endsWith('/map/land-110m.json'))).toBe(true);
    expect(await page.locator('app-site-map path.map-border').count()).toBe(0);
    expect(await page.locator('app-site-map .map-country-name').count()).toBe(0);
    expect(await settings.getByLabel('Country borders and names').isChecked()).toBe(false);

    // On again: asked for at once.
    await settings.getByLabel('Country borders and names').check();
    await settings.getByRole('button', { name: 'Save map settings' }).click();
    await waitFor(countriesRequested);
    await page.locator('app-site-map path.map-border').first().waitFor({ state: 'attached' });
    expectOnlyLocalRequests();
    await waitFor(async () => (await markers().count()) === 2);
    expect(await markers().allTextContents()).toEqual(
      expect.arrayContaining(['Home lab · 1 sensor', 'Paris edge · 0 sensors']),
    );

    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'sites.png'), fullPage: true });

    // The installation offers borders, but this account turned them off in its settings.
    const mine = (borders: 'on' | 'off') =>
      api.put(url('/api/settings'), { data: { ui: { borders } }, headers: { origin: server.url } });
    expect((await mine('off')).status()).toBe(200);
    try {
      await openSites();
      await coastlinesDrawn();
      await new Promise((resolve) => setTimeout(resolve, 750));
      expect(countriesRequested()).toBe(false);
      expect(await page.locator('app-site-map path.map-border').count()).toBe(0);
    } finally {
      expect((await mine('on')).status()).toBe(200);
    }
    expect(unexpectedProblems()).toEqual([]);
  });

  it('saves a third-party tile URL: the policy allows its origin and the map asks it for tiles', async () => {
    await openSites();
    const settings = page.getByTestId('map-settings-form');

    // A refused URL: the server's 400, verbatim.
    const expected = await refusal('put', '/api/map', { tile_url: 'ftp://127.0.0.1/{z}/{x}/{y}.png' });
    await settings.getByLabel('Tile URL').fill('ftp://127.0.0.1/{z}/{x}/{y}.png');
    await settings.getByRole('button', { name: 'Save map settings' }).click();
    await waitFor(async () => (await settings.getByRole('alert').textContent())?.trim() === expected);

    await settings.getByLabel('Tile URL').fill(DEAD_TILES);
    await settings.getByLabel('Attribution').fill('Test tiles <b>plain</b>');
    await settings.getByRole('button', { name: 'Save map settings' }).click();
    await page
      .getByTestId('map-settings-status')
      .filter({ hasText: 'Reload the page to let the browser load tiles from http://127.0.0.1:9' })
      .waitFor();

    // Until the page is reloaded, its policy (read at load) blocks the new origin: the page says so.
    requested = [];
    const response = await page.reload();
    problems.length = 0;
    expect(response?.headers()['content-security-policy']).toMatch(
      /img-src [^;]*http:\/\/127\.0\.0\.1:9(\s|;|$)/,
    );
    await heading('Sites').waitFor({ state: 'visible' });
    await page.locator('app-site-map img.leaflet-tile').first().waitFor({ state: 'attached' });
    const tiles = page.locator('app-site-map img.leaflet-tile');
    const count = await tiles.count();
    expect(count).toBeGreaterThan(0);
    for (let index = 0; index < count; index++) {
      expect(await tiles.nth(index).getAttribute('src')).toMatch(DEAD_TILE_SRC);
    }
    await waitFor(() => requested.some((entry) => DEAD_TILE_SRC.test(entry)));
    // The attribution is the administrator's text, shown as text.
    const attribution = page.locator('app-site-map .leaflet-control-attribution');
    expect(await attribution.textContent()).toContain('Test tiles <b>plain</b>');
    expect(await attribution.locator('b').count()).toBe(0);
    await coastlinesDrawn();
    expectOnlyLocalRequests();

    // Back to no tiles: nothing is asked of the tile server any more.
    await settings.getByLabel('Tile URL').fill('');
    await settings.getByRole('button', { name: 'Save map settings' }).click();
    await waitFor(async () => (await page.locator('app-site-map img.leaflet-tile').count()) === 0);
    expect(unexpectedProblems()).toEqual([]);
  });

  it('fits a 360 px wide screen and has no serious accessibility problems', async () => {
    await openSites();
    await coastlinesDrawn();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      await expect(page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBe(360);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(unexpectedProblems()).toEqual([]);
  });

  it('shows a viewer the map and the list without any control that changes them', async () => {
    const created = await api.post(url('/api/users'), {
      data: { ...VIEWER, role: 'viewer' },
      headers: { origin: server.url },
    });
    expect(created.status()).toBe(201);
    await signInAs(server.url, browser.context, VIEWER);

    await openSites();
    await page.getByTestId('header-role').filter({ hasText: 'Viewer' }).waitFor({ state: 'attached' });
    await site('Home lab').waitFor({ state: 'visible' });
    await coastlinesDrawn();
    await waitFor(async () => (await markers().count()) === 2);
    expect(await page.getByRole('button', { name: /^(Edit|Delete)\b/ }).count()).toBe(0);
    expect(await page.getByTestId('new-site-form').count()).toBe(0);
    expect(await page.getByTestId('map-settings-form').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(unexpectedProblems()).toEqual([]);
  });
});
