import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { Incident, ProbeResult, Sensor } from '@monitor/contracts';
import type { APIRequestContext, Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
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

/**
 * What sticks out sideways: the document's overflow, and every visible button, link, input, select and
 * textarea inside `main` whose box leaves 0..viewport width (described by its text or label).
 */
const LAYOUT_PROBE = `(() => {
  const doc = document.scrollingElement;
  const width = window.innerWidth;
  const describe = (element) => {
    const text = (element.getAttribute('aria-label') || element.textContent || element.value || '').trim().replace(/\\s+/g, ' ');
    const id = element.id ? '#' + element.id : '';
    return element.tagName.toLowerCase() + id + ' "' + text.slice(0, 60) + '"';
  };
  const offenders = [...document.querySelectorAll('main button, main a[href], main input, main select, main textarea')]
    .filter((element) => {
      const style = getComputedStyle(element);
      if (style.visibility === 'hidden' || style.display === 'none') return false;
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) return false;
      return box.left < -0.5 || box.right > width + 0.5;
    })
    .map((element) => {
      const box = element.getBoundingClientRect();
      return describe(element) + ' at ' + Math.round(box.left) + '..' + Math.round(box.right);
    });
  // Touch targets under 40 px high: buttons, selects, text fields, and labels that wrap a radio or checkbox.
  const small = [...document.querySelectorAll('main button, main a.button, main select, main input:not([type=checkbox]):not([type=radio]):not([type=file]), main label:has(> input[type=radio]), main label:has(> input[type=checkbox])')]
    .filter((element) => {
      const box = element.getBoundingClientRect();
      return box.width > 2 && box.height > 2 && box.height < 39.5 && getComputedStyle(element).visibility !== 'hidden';
    })
    .map((element) => describe(element) + ' is ' + Math.round(element.getBoundingClientRect().height) + ' px high');
  // When the document is too wide: the innermost elements reaching past the edge, or whose content
  // spills past it, leaving out what a scrolling or clipping box around it keeps in.
  const clipped = (element) => {
    for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement)
      if (getComputedStyle(parent).overflowX !== 'visible') return true;
    return false;
  };
  const tooWide = doc.scrollWidth > doc.clientWidth;
  const past = [...(tooWide ? document.body.querySelectorAll('*') : [])].filter((element) => {
    const spills = getComputedStyle(element).overflowX === 'visible';
    const spill = spills ? Math.max(0, element.scrollWidth - element.clientWidth) : 0;
    const right = element.getBoundingClientRect().right + spill;
    return right > width + 0.5 && !clipped(element);
  });
  const causes = past
    .filter((element) => !past.some((other) => other !== element && element.contains(other)))
    .slice(0, 5)
    .map((element) => element.tagName.toLowerCase() + (element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\\s+/).join('.') : '') + ' "' + (element.textContent || '').trim().slice(0, 40) + '"');
  return { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, offenders, small, causes };
})()`;

interface Layout {
  scrollWidth: number;
  clientWidth: number;
  offenders: string[];
  small: string[];
  causes: string[];
}

/**
 * For the first row of a table: its cells' labels (the `::before` content, `"label"` or, with an
 * empty alternative text for screen readers, `"label" / ""`) and whether each cell starts below the
 * previous one (stacked) or beside it.
 */
const rowShape = (testId: string) => `(() => {
  const table = document.querySelector('[data-testid="${testId}"]');
  const headers = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
  const row = table.querySelector('tbody tr');
  const cells = [...row.children];
  const boxes = cells.map((cell) => cell.getBoundingClientRect());
  return {
    headers,
    labels: cells.map((cell) => {
      const content = getComputedStyle(cell, '::before').content;
      return content === 'none' || content === 'normal' ? null : content.replace(/^"(.*?)"(\\s*\\/.*)?$/, '$1');
    }),
    stacked: boxes.slice(1).every((box, index) => box.top >= boxes[index].bottom - 1),
    sideBySide: boxes.slice(1).every((box, index) => Math.abs(box.top - boxes[index].top) < 1 && box.left >= boxes[index].right - 1),
    widest: Math.max(...boxes.map((box) => box.right)),
  };
})()`;

interface RowShape {
  headers: string[];
  labels: (string | null)[];
  stacked: boolean;
  sideBySide: boolean;
  widest: number;
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

  /**
   * What does not fit on the current page, empty when everything does; with `touch`, controls under
   * 40 px high count too.
   */
  async function misfits(label: string, touch = true): Promise<string[]> {
    const layout = await page.evaluate<Layout>(LAYOUT_PROBE);
    const found = [...layout.offenders, ...(touch ? layout.small : [])].map((what) => `${label}: ${what}`);
    if (layout.scrollWidth > layout.clientWidth)
      found.unshift(
        `${label}: the document is ${layout.scrollWidth} px wide in ${layout.clientWidth} px (${layout.causes.join(', ')})`,
      );
    return found;
  }

  async function expectFits(label: string): Promise<void> {
    expect(await misfits(label)).toEqual([]);
  }

  /**
   * What Chromium's accessibility tree (what a screen reader gets) says about a table: its role, and
   * the names of its column headers and the number of its rows and cells.
   */
  async function accessibleTable(testId: string): Promise<{
    role: string;
    headers: string[];
    rows: number;
    cells: number;
    names: string[];
    texts: string[];
  }> {
    const cdp = await browser.context.newCDPSession(page);
    try {
      const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
      const { nodeId } = await cdp.send('DOM.querySelector', {
        nodeId: root.nodeId,
        selector: `[data-testid="${testId}"]`,
      });
      const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
      const query = async (role: string) =>
        (await cdp.send('Accessibility.queryAXTree', { nodeId, role })).nodes;
      return {
        role: String(nodes[0]?.role?.value),
        headers: (await query('columnheader')).map((node) => String(node.name?.value ?? '').trim()),
        rows: (await query('row')).length,
        cells: (await query('cell')).length + (await query('rowheader')).length,
        names: (await query('cell')).map((node) => String(node.name?.value ?? '').trim()),
        texts: await page.evaluate<string[]>(
          `[...document.querySelectorAll('[data-testid="${testId}"] tbody td')].map((cell) => cell.textContent.trim())`,
        ),
      };
    } finally {
      await cdp.detach();
    }
  }

  /**
   * Cells whose accessible name starts with the column label shown before the value though their own
   * text does not: the label would be read out again after the column header.
   */
  const labelledTwice = (table: { headers: string[]; names: string[]; texts: string[] }) =>
    table.names.filter((name, index) => {
      const header = table.headers[index % table.headers.length];
      return header !== '' && name.startsWith(`${header} `) && !table.texts[index]?.startsWith(header);
    });

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
      found.push(...(await misfits(path, touch)));
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
    found.push(...(await misfits('sensor editor with a header row')));

    await page.goto(url('/sites'));
    await page.getByRole('button', { name: `Edit ${SITE_NAME}` }).click();
    await page.getByRole('button', { name: `Save ${SITE_NAME}` }).waitFor();
    found.push(...(await misfits('site edit form')));

    // The channel's receiver answers 500: the failed test shows the server's error in the form.
    await page.goto(url('/channels'));
    await page.getByRole('button', { name: `Edit ${CHANNEL_NAME}` }).click();
    const form = page.getByTestId('channel-form');
    await form.getByRole('button', { name: 'Send test' }).click();
    await waitFor(async () =>
      /500/.test((await page.getByTestId('channel-test-result').textContent()) ?? ''),
    );
    found.push(...(await misfits('channel form after a failed test')));

    await page.goto(url('/settings'));
    await page.getByRole('button', { name: 'Reveal' }).click();
    await page.getByRole('button', { name: 'Hide' }).waitFor();
    found.push(...(await misfits('settings with the API key revealed')));

    await page.goto(url('/account'));
    await page.getByRole('button', { name: 'Set up', exact: true }).click();
    await page.locator('main img').first().waitFor();
    found.push(...(await misfits('second-factor enrolment with its QR code')));

    await page.goto(url('/admin'));
    await page.getByRole('button', { name: 'Run checks' }).click();
    await page.getByTestId('doctor-checks').waitFor();
    found.push(...(await misfits('doctor results')));
    const backup = await api.get(url('/api/backup?scope=history&days=all'));
    await page.getByLabel('Backup file').setInputFiles({
      name: 'monitor-backup-of-the-frankfurt-installation-before-the-upgrade.json',
      mimeType: 'application/json',
      buffer: await backup.body(),
    });
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ state: 'visible' });
    found.push(...(await misfits('restore confirmation')));
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    expect(found).toEqual([]);
    // The failed channel test is the only expected console error (the server answers it with 502).
    expect(problems.filter((line) => !/status of 502/.test(line))).toEqual([]);
  });

  it('stacks the incidents into labelled blocks whose Acknowledge button is visible and works', async () => {
    await page.goto(url('/incidents'));
    const row = page.getByTestId(`incident-${incident.id}`);
    await row.waitFor();
    const shape = await page.evaluate<RowShape>(rowShape('incident-table'));
    expect(shape.stacked).toBe(true);
    expect(shape.widest).toBeLessThanOrEqual(PHONE.width);
    // Every value but the action cell carries its column's name.
    expect(shape.labels.slice(0, -1)).toEqual(shape.headers.slice(0, -1));
    // Screen readers still get a table with its column headers, and each value once (not its label).
    const table = await accessibleTable('incident-table');
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
    const shape = await page.evaluate<RowShape>(rowShape('results-table'));
    expect(shape.stacked).toBe(true);
    expect(shape.labels).toEqual(shape.headers);
    const table = await accessibleTable('results-table');
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
    const shape = await page.evaluate<RowShape>(rowShape('accounts-table'));
    expect(shape.stacked).toBe(true);
    expect(shape.labels.slice(0, -1)).toEqual(shape.headers.slice(0, -1));
    const table = await accessibleTable('accounts-table');
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
        const shape = await page.evaluate<RowShape>(rowShape(testId));
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
