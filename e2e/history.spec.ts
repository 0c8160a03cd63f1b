import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Incident, ProbeResult, Sensor } from '@monitor/contracts';
import type { APIRequestContext, Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { setUpAdminSession, signInAs } from './support/session';
import { collectProblems, waitFor as waitUntil } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';

jest.setTimeout(120_000);

/** The README links these: they are kept current by this test. */
const SCREENSHOTS = SCREENSHOTS_DIR;
const VIEWER = { username: 'watcher', password: 'viewer password 1' } as const;
const NOTE = 'looking into it';

/** A local HTTP service for the healthy sensor to probe. */
async function startTarget(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/health`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** History pages wait for rollups and charts: a longer default. */
const waitFor = (check: () => boolean | Promise<boolean>, timeoutMs = 20_000) =>
  waitUntil(check, timeoutMs, 200);

describe('Sensor history, incidents and search (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let target: Awaited<ReturnType<typeof startTarget>>;
  let browser: BrowserSession;
  let page: Page;
  let api: APIRequestContext;
  let problems: string[];
  let web: Sensor;
  let broken: Sensor;
  let incident: Incident;

  const url = (path: string) => `${server.url}${path}`;
  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });

  async function getJson<T>(path: string): Promise<T> {
    const response = await api.get(url(path));
    if (!response.ok())
      throw new Error(`GET ${path} answered ${response.status()}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  async function postJson<T>(path: string, body: unknown): Promise<T> {
    const response = await api.post(url(path), { data: body });
    if (!response.ok())
      throw new Error(`POST ${path} answered ${response.status()}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  async function screenshot(name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, name), fullPage: true });
  }

  async function pageWidth(): Promise<number> {
    return page.evaluate<number>('document.documentElement.scrollWidth');
  }

  const focusedId = () => page.evaluate<string | undefined>('document.activeElement?.id');

  beforeAll(async () => {
    server = await startServer();
    target = await startTarget();
    browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = browser.page;
    api = browser.context.request;
    problems = collectProblems(page);
    await setUpAdminSession(server.url, browser.context);

    const port = await closedPort();
    web = await postJson<Sensor>('/api/sensors', {
      name: 'Web app',
      type: 'http',
      target: target.url,
      interval: 1,
      retries: 1,
    });
    broken = await postJson<Sensor>('/api/sensors', {
      name: 'Broken API',
      type: 'http',
      target: `http://127.0.0.1:${port}/`,
      interval: 1,
      retries: 1,
    });
    // Results reach the database in batches (every few seconds); the incident opens at once.
    await waitFor(async () => (await getJson<ProbeResult[]>(`/api/sensors/${web.id}/results`)).length >= 3);
    await waitFor(async () => (await getJson<Sensor>(`/api/sensors/${broken.id}`)).status === 'down');
    const incidents = await getJson<Incident[]>(`/api/sensors/${broken.id}/incidents`);
    expect(incidents).toHaveLength(1);
    incident = incidents[0];
  });

  afterAll(async () => {
    await browser?.close();
    await target?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    problems.length = 0;
  });

  it('opens a sensor from the status page and shows its charts, figures and recent results', async () => {
    await page.goto(url('/'));
    await page.getByTestId('sensor-list').getByRole('link', { name: 'Web app' }).click();
    await page.waitForURL(url(`/sensors/${web.id}`));
    await heading('Web app').waitFor({ state: 'visible' });
    await expect(page.title()).resolves.toBe('Web app · Monitor');
    expect(await page.getByTestId('sensor-status').textContent()).toContain('Up');
    expect(await page.getByTestId('sensor-type').textContent()).toBe('http');
    expect(await page.getByTestId('sensor-target').textContent()).toBe(target.url);
    // 24 hours by default.
    await expect(page.getByRole('radio', { name: 'the last 24 hours' }).isChecked()).resolves.toBe(true);

    await page.getByRole('radio', { name: 'the last hour' }).check();
    await page.waitForURL(url(`/sensors/${web.id}?range=1h`));
    await expect(page.getByRole('radio', { name: 'the last hour' }).isChecked()).resolves.toBe(true);
    // The range change kept the focus on the range selector (no jump to the top of the page).
    await expect(page.evaluate<string | undefined>('document.activeElement?.name')).resolves.toBe('range');

    for (const kind of ['latency', 'uptime']) {
      const chart = page.getByTestId(`chart-${kind}`);
      await chart.locator('canvas').first().waitFor({ state: 'attached' });
      expect(Number(await chart.getAttribute('data-points'))).toBeGreaterThan(0);
    }
    await page.getByTestId('figure-tier').filter({ hasText: 'Raw results' }).waitFor();
    expect(await page.getByTestId('figure-uptime').textContent()).toMatch(/^\d+(\.\d+)?%$/);
    expect(await page.getByTestId('figure-average').textContent()).toMatch(/^\d+(\.\d+)? ms$/);
    expect(await page.getByTestId('figure-min-max').textContent()).toMatch(/ms \/ .* ms$/);
    expect((await page.getByTestId('figure-incidents').textContent())?.trim()).toBe('0');
    expect((await page.getByTestId('figure-downtime').textContent())?.trim()).toBe('0 sec');

    const rows = page.getByTestId('results-table').locator('tbody tr');
    expect(await rows.count()).toBeGreaterThanOrEqual(3);
    const first = (await rows.first().getByRole('cell').allTextContents()).map((cell) => cell.trim());
    expect(first[1]).toContain('OK');
    expect(first[2]).toBe('200');
    expect(first[3]).toMatch(/ms$/);

    // Run now: the stored result is reported.
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByTestId('sensor-action-status').filter({ hasText: 'The probe succeeded.' }).waitFor();

    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot('sensor-detail.png');
    expect(problems).toEqual([]);
  });

  it("shows a down sensor's open incident on its page", async () => {
    await page.goto(url(`/sensors/${broken.id}`));
    await heading('Broken API').waitFor({ state: 'visible' });
    expect(await page.getByTestId('sensor-status').textContent()).toContain('Down');
    const row = page.getByTestId(`incident-${incident.id}`);
    await row.waitFor({ state: 'visible' });
    expect(await row.textContent()).toContain('open');
    expect(await row.textContent()).toContain(incident.cause);
    await page.getByRole('button', { name: `Acknowledge incident ${incident.id}` }).waitFor();
    await page.getByRole('radio', { name: 'the last hour' }).check();
    await page.getByTestId('figure-incidents').filter({ hasText: '1' }).waitFor();
    expect(await page.getByTestId('figure-uptime').textContent()).toMatch(/^0%$/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('lists, filters and acknowledges incidents on /incidents', async () => {
    await page.goto(url('/'));
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Incidents' }).click();
    await page.waitForURL(url('/incidents'));
    await heading('Incidents').waitFor({ state: 'visible' });
    const row = page.getByTestId(`incident-${incident.id}`);
    await row.waitFor({ state: 'visible' });
    const cells = (await row.getByRole('cell').allTextContents()).map((cell) => cell.trim());
    expect(cells[0]).toBe('Broken API');
    expect(cells[2]).toContain('open');
    expect(cells[4]).toBe(incident.cause);
    expect(await page.getByTestId('incident-table').locator('tbody tr').count()).toBe(1);

    // State.
    await page.getByLabel('State').selectOption('resolved');
    await page.waitForURL(url('/incidents?state=resolved'));
    await page.getByTestId('incidents-empty').waitFor({ state: 'visible' });
    await page.getByLabel('State').selectOption('open');
    await page.waitForURL(url('/incidents?state=open'));
    await row.waitFor({ state: 'visible' });

    // Text, typed (debounced) into the URL; the focus stays in the box.
    const text = page.getByLabel('Text', { exact: true });
    await text.fill('no such words');
    await page.waitForURL(url('/incidents?state=open&q=no%20such%20words'));
    await page.getByTestId('incidents-empty').waitFor({ state: 'visible' });
    await waitUntil(async () => (await focusedId()) === 'filter-q');
    await text.fill('broken');
    await page.waitForURL(url('/incidents?state=open&q=broken'));
    await row.waitFor({ state: 'visible' });

    // The filters come back from the URL.
    await page.goto(url('/incidents?state=resolved&q=broken'));
    await page.getByTestId('incidents-empty').waitFor({ state: 'visible' });
    await expect(page.getByLabel('State').inputValue()).resolves.toBe('resolved');
    await expect(text.inputValue()).resolves.toBe('broken');
    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.waitForURL(url('/incidents'));
    await row.waitFor({ state: 'visible' });

    // Acknowledge with a note, then take it back.
    await row.getByRole('button', { name: `Acknowledge incident ${incident.id}` }).click();
    await waitUntil(async () => (await focusedId()) === `ack-note-${incident.id}`);
    const form = page.getByTestId(`ack-form-${incident.id}`);
    await form.getByLabel(`Note for incident ${incident.id}`).fill(NOTE);
    await form.getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await page.getByTestId('incident-status').filter({ hasText: 'was acknowledged' }).waitFor();
    const ack = row.getByTestId('incident-ack');
    expect(await ack.textContent()).toContain('by admin');
    expect(await ack.textContent()).toContain(NOTE);
    const stored = await getJson<Incident[]>(`/api/sensors/${broken.id}/incidents`);
    expect(stored[0]).toMatchObject({ acknowledged: true, acknowledged_by: 'admin', note: NOTE });
    await expect(page.evaluate<string>('document.activeElement?.textContent ?? ""')).resolves.toContain(
      'Un-acknowledge',
    );
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot('incidents.png');

    await row.getByRole('button', { name: `Un-acknowledge incident ${incident.id}` }).click();
    await page.getByTestId('incident-status').filter({ hasText: 'no longer acknowledged' }).waitFor();
    expect((await ack.textContent())?.trim()).toBe('no');
    const after = await getJson<Incident[]>(`/api/sensors/${broken.id}/incidents`);
    expect(after[0]?.acknowledged).toBe(false);
    expect(problems).toEqual([]);
  });

  it('focuses the search with /, lists a sensor by name and opens it with Enter', async () => {
    await page.goto(url('/incidents'));
    await heading('Incidents').waitFor({ state: 'visible' });
    // In a text field, / is just a character.
    await page.getByLabel('Text', { exact: true }).focus();
    await page.keyboard.press('/');
    await waitUntil(async () => (await focusedId()) === 'filter-q');
    await page.getByRole('heading', { level: 1 }).click();

    await page.keyboard.press('/');
    await waitUntil(async () => (await focusedId()) === 'global-search');
    await page.keyboard.type('web a');
    const results = page.getByTestId('search-results');
    const option = results.getByRole('option', { name: /Web app/ });
    await option.waitFor({ state: 'visible' });
    expect(await results.getByRole('group', { name: 'Sensors' }).count()).toBe(1);
    const search = page.getByRole('combobox', { name: 'Search' });
    await expect(search.getAttribute('aria-expanded')).resolves.toBe('true');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot('search.png');

    // Escape closes the list; the arrow key opens it again with the first hit active.
    await page.keyboard.press('Escape');
    await results.waitFor({ state: 'detached' });
    await page.keyboard.press('ArrowDown');
    await expect(option.getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('Enter');
    await page.waitForURL(url(`/sensors/${web.id}`));
    await heading('Web app').waitFor({ state: 'visible' });
    await expect(search.inputValue()).resolves.toBe('');
    expect(problems).toEqual([]);
  });

  it('fits a 360 px wide screen', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      for (const path of [`/sensors/${web.id}?range=1h`, '/incidents']) {
        await page.goto(url(path));
        await page.locator('h1').waitFor({ state: 'visible' });
        if (path === '/incidents') await page.getByTestId('incident-table').waitFor();
        else await page.getByTestId('chart-latency').locator('canvas').first().waitFor({ state: 'attached' });
        await screenshot(path === '/incidents' ? 'incidents-360.png' : 'sensor-detail-360.png');
        await expect(pageWidth()).resolves.toBe(360);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(problems).toEqual([]);
  });

  it('shows a viewer no acknowledge and no Run now buttons', async () => {
    await postJson('/api/users', { ...VIEWER, role: 'viewer' });
    await signInAs(server.url, browser.context, VIEWER);

    await page.goto(url('/incidents'));
    await page.getByTestId('header-role').filter({ hasText: 'Viewer' }).waitFor({ state: 'attached' });
    await page.getByTestId(`incident-${incident.id}`).waitFor({ state: 'visible' });
    expect(await page.getByRole('button', { name: /Acknowledge/ }).count()).toBe(0);
    expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);

    await page.goto(url(`/sensors/${broken.id}`));
    await page.getByTestId(`incident-${incident.id}`).waitFor({ state: 'visible' });
    expect(await page.getByRole('button', { name: /Acknowledge/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Run now' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
