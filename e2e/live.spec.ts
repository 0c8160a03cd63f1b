import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Sensor } from '@monitor/contracts';
import type { APIRequestContext, Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { setUpAdminSession } from './support/session';
import { collectProblems, waitFor } from './support/page';

jest.setTimeout(120_000);

/** A local HTTP service whose answer the test switches between 200 and 500. */
async function startSwitchableTarget(): Promise<{ url: string; status: number; close(): Promise<void> }> {
  const target = { url: '', status: 200, close: (): Promise<void> => Promise.resolve() };
  const server: Server = createServer((_request, response) => {
    response.writeHead(target.status, { 'content-type': 'text/plain' });
    response.end(target.status === 200 ? 'ok' : 'broken');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
  target.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return target;
}

describe('Live updates on the status page (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let target: Awaited<ReturnType<typeof startSwitchableTarget>>;
  let browser: BrowserSession;
  let page: Page;
  let api: APIRequestContext;
  let problems: string[];
  let sensor: Sensor;
  /** Every request the page made, as `<resource type> <path>`. */
  const requests: string[] = [];

  const url = (path: string) => `${server.url}${path}`;
  const row = () => page.getByTestId(`sensor-row-${sensor.id}`);
  const statusText = async () => (await row().getByTestId('sensor-row-status').textContent())?.trim();
  const requestsTo = (path: string) => requests.filter((r) => r.endsWith(` ${path}`));

  beforeAll(async () => {
    server = await startServer();
    target = await startSwitchableTarget();
    browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = browser.page;
    api = browser.context.request;
    problems = collectProblems(page);
    page.on('request', (request) => {
      requests.push(`${request.resourceType()} ${new URL(request.url()).pathname}`);
    });
    await setUpAdminSession(server.url, browser.context);
    const created = await api.post(url('/api/sensors'), {
      data: { name: 'Shop', type: 'http', target: target.url, interval: 1, retries: 1 },
    });
    expect(created.status()).toBe(201);
    sensor = (await created.json()) as Sensor;
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

  it('shows a sensor going down and up again without reloading the page', async () => {
    await page.goto(url('/'));
    await page.getByTestId('live-state').filter({ hasText: 'Live updates on' }).waitFor();
    await row().getByTestId('sensor-row-status').filter({ hasText: 'Up' }).waitFor({ timeout: 15_000 });
    expect(requestsTo('/api/events').length).toBeGreaterThanOrEqual(1);
    expect(requestsTo('/api/events')[0]).toBe('eventsource /api/events');
    // Results arrive between status changes too: the last-checked time moves on.
    const checked = await row().getByTestId('sensor-row-checked').getAttribute('datetime');
    await waitFor(
      async () => (await row().getByTestId('sensor-row-checked').getAttribute('datetime')) !== checked,
    );
    expect(await row().getByTestId('sensor-row-message').textContent()).toContain('HTTP 200');

    // A marker in the page survives only if the page is never reloaded.
    await page.evaluate('window.__notReloaded = true');
    const summariesBefore = requestsTo('/api/summary').length;

    target.status = 500;
    await row().getByTestId('sensor-row-status').filter({ hasText: 'Down' }).waitFor({ timeout: 15_000 });
    // The card is marked for a moment, the change is announced, and the text says what it is now.
    expect(await row().getAttribute('data-changed')).toBe('true');
    expect(await statusText()).toContain('Down');
    expect(await page.getByTestId('status-announcement').textContent()).toContain('Shop is now down.');
    await row().getByTestId('sensor-row-message').filter({ hasText: 'HTTP 500' }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    // …and only for a moment.
    await waitFor(async () => (await row().getAttribute('data-changed')) === null, 5_000);

    target.status = 200;
    await row().getByTestId('sensor-row-status').filter({ hasText: 'Up' }).waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('status-announcement').textContent()).toContain('Shop is now up.');

    // The changes came over the stream: no reload, and no refetch of the list was needed.
    await expect(page.evaluate('window.__notReloaded')).resolves.toBe(true);
    expect(requestsTo('/api/summary').length).toBe(summariesBefore);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('refetches the list when a sensor is added', async () => {
    await page.goto(url('/'));
    await page.getByTestId('live-state').filter({ hasText: 'Live updates on' }).waitFor();
    await row().waitFor();
    const created = await api.post(url('/api/sensors'), {
      data: { name: 'Warehouse', type: 'http', target: target.url, interval: 60 },
    });
    expect(created.status()).toBe(201);
    await page
      .getByTestId('sensor-list')
      .getByRole('link', { name: 'Warehouse' })
      .waitFor({ timeout: 10_000 });
    expect(problems).toEqual([]);
  });

  it('keeps a status change that arrived while the list was being read again', async () => {
    await page.goto(url('/'));
    await page.getByTestId('live-state').filter({ hasText: 'Live updates on' }).waitFor();
    await row().getByTestId('sensor-row-status').filter({ hasText: 'Up' }).waitFor({ timeout: 15_000 });
    const sensors = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
    const other = sensors.find((candidate) => candidate.name === 'Warehouse');
    expect(other).toBeDefined();

    // The next read of the list is answered as it was when asked, but only after the sensor went down.
    let asked!: () => void;
    const readSent = new Promise<void>((resolve) => (asked = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    await page.route(/\/api\/summary$/, async (route) => {
      if (held) return route.continue();
      held = true;
      const response = await route.fetch();
      const body = await response.text();
      asked();
      await released;
      await route.fulfill({ response, body });
    });
    try {
      // Renaming another sensor makes the page read the list again.
      const renamed = await api.put(url(`/api/sensors/${other!.id}`), { data: { name: 'Warehouse East' } });
      expect(renamed.status()).toBe(200);
      await readSent;
      target.status = 500;
      await row().getByTestId('sensor-row-status').filter({ hasText: 'Down' }).waitFor({ timeout: 15_000 });
      release();
      const list = page.getByTestId('sensor-list');
      await list.getByRole('link', { name: 'Warehouse East' }).waitFor({ timeout: 10_000 });
      // The older answer is in, and the change that came after it still shows.
      expect(await statusText()).toContain('Down');
    } finally {
      release();
      await page.unroute(/\/api\/summary$/);
      target.status = 200;
    }
    await row().getByTestId('sensor-row-status').filter({ hasText: 'Up' }).waitFor({ timeout: 15_000 });
    expect(problems).toEqual([]);
  });

  it('makes no event-stream connection when the account turned live updates off', async () => {
    const saved = await api.put(url('/api/settings'), { data: { ui: { live: 'off' } } });
    expect(saved.status()).toBe(200);
    requests.length = 0;

    await page.goto(url('/'));
    await row().getByTestId('sensor-row-status').waitFor();
    await page.getByTestId('live-state').filter({ hasText: 'Live updates are off' }).waitFor();
    // Give a connection every chance to appear.
    await page.waitForTimeout(2_000);
    expect(requestsTo('/api/events')).toEqual([]);
    expect(requestsTo('/api/summary').length).toBeGreaterThanOrEqual(1);
    const streamEntries = await page.evaluate<number>(
      "performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/api/events')).length",
    );
    expect(streamEntries).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);

    // Turned on again (here through the API), the next visit connects.
    await api.put(url('/api/settings'), { data: { ui: { live: 'on' } } });
    await page.goto(url('/'));
    await page.getByTestId('live-state').filter({ hasText: 'Live updates on' }).waitFor();
    expect(requestsTo('/api/events').length).toBeGreaterThanOrEqual(1);
  });
});
