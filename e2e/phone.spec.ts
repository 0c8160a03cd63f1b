import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { Incident, ProbeResult, Sensor } from '@monitor/contracts';
import type { APIRequestContext, Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { accessibleTable, firstRowShape, labelledTwice, layoutMisfits } from './support/layout';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';
import { setUpAdminSession } from './support/session';

jest.setTimeout(180_000);

const PHONE = { width: 360, height: 740 } as const;
const DESKTOP = { width: 1280, height: 800 } as const;
/** Long names and addresses on purpose: they are what pushes a narrow page wider than the screen. */
const SENSOR_NAME = 'Payment gateway health endpoint for the European customers';
const SITE_NAME = 'Frankfurt data centre, second floor, rack row C';
const CHANNEL_NAME = 'Operations team webhook for the night shift';
const SECOND = {
  username: 'night-shift-operator-with-a-long-name',
  password: 'second account pw 1',
} as const;

/** A local HTTP service that always answers 500: the sensor probing it goes down and opens an incident. */
async function startFailingTarget(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(500, { 'content-type': 'text/plain' });
    response.end('broken on purpose');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v2/payments/health/check-every-dependency?region=europe-west&verbose=1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Every page at 360 px (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let target: Awaited<ReturnType<typeof startFailingTarget>>;
  let browser: BrowserSession;
  let page: Page;
  let api: APIRequestContext;
  let problems: string[];
  let sensor: Sensor;
  let incident: Incident;

  const url = (path: string) => `${server.url}${path}`;

  async function postJson<T>(path: string, body?: unknown): Promise<T> {
    const response = await api.post(url(path), { data: body, headers: { origin: server.url } });
    if (!response.ok())
      throw new Error(`POST ${path} answered ${response.status()}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  async function getJson<T>(path: string): Promise<T> {
    const response = await api.get(url(path));
    if (!response.ok()) throw new Error(`GET ${path} answered ${response.status()}`);
    return (await response.json()) as T;
  }

  async function expectFits(label: string): Promise<void> {
    expect(await layoutMisfits(page, label)).toEqual([]);
  }

  /** Each page, and what shows that its data has arrived. */
  const pages = (): { path: string; ready: () => Promise<void>; touch?: false }[] => {
    const inMain = (text: string) => page.locator('main').getByText(text).first().waitFor();
    return [
      // The status page is being reworked separately (its own phone layout): width only, no target sizes.
      { path: '/', ready: () => inMain(SENSOR_NAME), touch: false },
      { path: '/incidents', ready: () => page.getByTestId(`incident-${incident.id}`).waitFor() },
      {
        path: `/sensors/${sensor.id}`,
        ready: async () => {
          await page.getByTestId('results-table').locator('tbody tr').first().waitFor();
          await page.getByTestId(`incident-${incident.id}`).waitFor();
          await page.getByTestId('chart-latency').locator('canvas').first().waitFor({ state: 'attached' });
        },
      },
      {
        path: `/sensors/${sensor.id}/edit`,
        ready: () => waitFor(async () => (await page.locator('#sensor-name').inputValue()) === SENSOR_NAME),
      },
      { path: '/sensors/new', ready: () => page.locator('#sensor-name').waitFor() },
      { path: '/sites', ready: () => page.getByTestId(`site-${SITE_NAME}`).waitFor() },
      { path: '/channels', ready: () => inMain(CHANNEL_NAME) },
      { path: '/settings', ready: () => page.getByTestId('api-key-value').waitFor() },
      { path: '/account', ready: () => page.getByTestId('password-form').waitFor() },
      { path: '/accounts', ready: () => page.getByTestId(`account-row-${SECOND.username}`).waitFor() },
      { path: '/admin', ready: () => page.getByTestId('backup-section').waitFor() },
      { path: '/about', ready: () => page.locator('main h1').first().waitFor() },
    ];
  };

  beforeAll(async () => {
    server = await startServer();
    target = await startFailingTarget();
    browser = await openBrowser({ viewport: PHONE, locale: 'en-US', timezoneId: 'UTC' });
    page = browser.page;
    api = browser.context.request;
    problems = collectProblems(page);
    await setUpAdminSession(server.url, browser.context);
    await postJson('/api/onboarding/tour', { version: 1 });

    await postJson('/api/sites', { name: SITE_NAME, kind: 'local', lat: 50.11, lon: 8.68 });
    sensor = await postJson<Sensor>('/api/sensors', {
      name: SENSOR_NAME,
      type: 'http',
      target: target.url,
      interval: 1,
      retries: 1,
      site: SITE_NAME,
    });
    await postJson('/api/channels', {
      name: CHANNEL_NAME,
      type: 'webhook',
      config: { url: target.url },
    });
    await postJson('/api/users', { ...SECOND, role: 'operator' });
    await postJson('/api/api-key');

    // Results reach the database in batches (every few seconds); the incident opens at once.
    await waitFor(
      async () => (await getJson<ProbeResult[]>(`/api/sensors/${sensor.id}/results`)).length >= 2,
      30_000,
      200,
    );
    await waitFor(
      async () => (await getJson<Sensor>(`/api/sensors/${sensor.id}`)).status === 'down',
      30_000,
      200,
    );
    [incident] = await getJson<Incident[]>(`/api/sensors/${sensor.id}/incidents`);
    expect(incident?.resolved_at).toBeFalsy();
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

  /** Every page in turn; what sticks out anywhere, with the page it is on. */
  async function sweep(): Promise<string[]> {
    const found: string[] = [];
    for (const { path, ready, touch } of pages()) {
      await page.goto(url(path));
      await ready();
      found.push(...(await layoutMisfits(page, path, touch)));
    }
    return found;
  }

  it('fits every page into 360 px: no sideways scroll, every control inside the screen and at least 40 px high', async () => {
    // All pages first, then one assertion: a failure lists everything that sticks out anywhere.
    expect(await sweep()).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('fits every page into 360 px in German too (longer words)', async () => {
    const language = (value: string) => api.put(url('/api/settings'), { data: { ui: { language: value } } });
    expect((await language('de')).status()).toBe(200);
    try {
      expect(await sweep()).toEqual([]);
      expect(await page.locator('html').getAttribute('lang')).toBe('de');
    } finally {
      await language('en');
    }
    expect(problems).toEqual([]);
  });

  it('fits the forms, dialogs and results that open inside the pages into 360 px', async () => {
    const found: string[] = [];

    await page.goto(url(`/sensors/${sensor.id}/edit`));
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 1 name').waitFor();
    found.push(...(await layoutMisfits(page, 'sensor editor with a header row')));

    await page.goto(url('/sites'));
    await page.getByRole('button', { name: `Edit ${SITE_NAME}` }).click();
    await page.getByRole('button', { name: `Save ${SITE_NAME}` }).waitFor();
    found.push(...(await layoutMisfits(page, 'site edit form')));

    // The channel's receiver answers 500: the failed test shows the server's error in the form.
    await page.goto(url('/channels'));
    await page.getByRole('button', { name: `Edit ${CHANNEL_NAME}` }).click();
    const form = page.getByTestId('channel-form');
    await form.getByRole('button', { name: 'Send test' }).click();
    await waitFor(async () =>
      /500/.test((await page.getByTestId('channel-test-result').textContent()) ?? ''),
    );
    found.push(...(await layoutMisfits(page, 'channel form after a failed test')));

    await page.goto(url('/settings'));
    await page.getByRole('button', { name: 'Reveal' }).click();
    await page.getByRole('button', { name: 'Hide' }).waitFor();
    found.push(...(await layoutMisfits(page, 'settings with the API key revealed')));

    await page.goto(url('/account'));
    await page.getByRole('button', { name: 'Set up', exact: true }).click();
    await page.locator('main img').first().waitFor();
    found.push(...(await layoutMisfits(page, 'second-factor enrolment with its QR code')));

    await page.goto(url('/admin'));
    await page.getByRole('button', { name: 'Run checks' }).click();
    await page.getByTestId('doctor-checks').waitFor();
    found.push(...(await layoutMisfits(page, 'doctor results')));
    const backup = await api.get(url('/api/backup?scope=history&days=all'));
    await page.getByLabel('Backup file').setInputFiles({
      name: 'monitor-backup-of-the-frankfurt-installation-before-the-upgrade.json',
      mimeType: 'application/json',
      buffer: await backup.body(),
    });
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ state: 'visible' });
    found.push(...(await layoutMisfits(page, 'restore confirmation')));
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    expect(found).toEqual([]);
    // The failed channel test is the only expected console error (the server answers it with 502).
    expect(problems.filter((line) => !/status of 502/.test(line))).toEqual([]);
  });

  it('stacks the incidents into labelled blocks whose Acknowledge button is visible and works', async () => {
    await page.goto(url('/incidents'));
    const row = page.getByTestId(`incident-${incident.id}`);
    await row.waitFor();
    const shape = await firstRowShape(page, 'incident-table');
    expect(shape.stacked).toBe(true);
    expect(shape.widest).toBeLessThanOrEqual(PHONE.width);
    // Every value but the action cell carries its column's name.
    expect(shape.labels.slice(0, -1)).toEqual(shape.headers.slice(0, -1));
    // Screen readers still get a table with its column headers, and each value once (not its label).
    const table = await accessibleTable(page, 'incident-table');
    expect(table).toMatchObject({
      role: 'table',
      headers: shape.headers,
      rows: 2,
      cells: shape.headers.length,
    });
    expect(labelledTwice(table)).toEqual([]);

    const acknowledge = page.getByRole('button', { name: `Acknowledge incident ${incident.id}` });
    expect(await acknowledge.isVisible()).toBe(true);
    const box = (await acknowledge.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    expect(box.height).toBeGreaterThanOrEqual(40);

    await acknowledge.click();
    const form = page.getByTestId(`ack-form-${incident.id}`);
    await form.getByLabel(/note/i).fill('on it from my phone');
    await expectFits('/incidents with the note form open');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'phone-incidents.png'), fullPage: true });
    await form.getByRole('button', { name: 'Acknowledge' }).click();
    await page.getByRole('button', { name: `Un-acknowledge incident ${incident.id}` }).waitFor();
    expect(await row.getByTestId('incident-ack').textContent()).toContain('on it from my phone');
    const stored = await getJson<Incident[]>(`/api/sensors/${sensor.id}/incidents`);
    expect(stored[0]).toMatchObject({ id: incident.id, acknowledged: true, note: 'on it from my phone' });
    expect(problems).toEqual([]);
  });

  it("stacks the sensor page's recent results, each value labelled", async () => {
    await page.goto(url(`/sensors/${sensor.id}`));
    await page.getByTestId('results-table').locator('tbody tr').first().waitFor();
    const shape = await firstRowShape(page, 'results-table');
    expect(shape.stacked).toBe(true);
    expect(shape.labels).toEqual(shape.headers);
    const table = await accessibleTable(page, 'results-table');
    expect(table).toMatchObject({ role: 'table', headers: shape.headers });
    expect(table.cells).toBe((table.rows - 1) * shape.headers.length);
    expect(table.rows).toBeGreaterThan(1);
    expect(labelledTwice(table)).toEqual([]);
    expect(shape.widest).toBeLessThanOrEqual(PHONE.width);
    await page.getByTestId('chart-latency').locator('canvas').first().waitFor({ state: 'attached' });
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'phone-sensor.png'), fullPage: true });
    expect(problems).toEqual([]);
  });

  it('stacks the accounts, each value labelled, with the row actions at least 40 px high', async () => {
    await page.goto(url('/accounts'));
    const row = page.getByTestId(`account-row-${SECOND.username}`);
    await row.waitFor();
    const shape = await firstRowShape(page, 'accounts-table');
    expect(shape.stacked).toBe(true);
    expect(shape.labels.slice(0, -1)).toEqual(shape.headers.slice(0, -1));
    const table = await accessibleTable(page, 'accounts-table');
    expect(table).toMatchObject({
      role: 'table',
      headers: shape.headers,
      rows: 3,
      cells: 2 * shape.headers.length,
    });
    // The names of the row headers are not among the cells: the cells start at the second column.
    expect(labelledTwice({ ...table, headers: shape.headers.slice(1) })).toEqual([]);
    for (const button of await row.getByRole('button').all()) {
      const box = (await button.boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(40);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    }
    await row.getByRole('button', { name: `Reset password of ${SECOND.username}` }).click();
    await page.getByTestId('reset-password-form').waitFor();
    await expectFits('/accounts with the reset form open');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('keeps the incidents, recent results and accounts tables of side-by-side columns at 1280 px', async () => {
    await page.setViewportSize(DESKTOP);
    try {
      const expectTable = async (testId: string) => {
        const shape = await firstRowShape(page, testId);
        expect({ testId, sideBySide: shape.sideBySide }).toEqual({ testId, sideBySide: true });
        expect(shape.labels.every((label) => label === null)).toBe(true);
        expect(await page.locator(`[data-testid="${testId}"] thead`).isVisible()).toBe(true);
      };
      await page.goto(url('/incidents'));
      await page.getByTestId(`incident-${incident.id}`).waitFor();
      await expectTable('incident-table');
      await page.goto(url(`/sensors/${sensor.id}`));
      await page.getByTestId('results-table').locator('tbody tr').first().waitFor();
      await expectTable('results-table');
      await page.goto(url('/accounts'));
      await page.getByTestId(`account-row-${SECOND.username}`).waitFor();
      await expectTable('accounts-table');
    } finally {
      await page.setViewportSize(PHONE);
    }
  });
});
