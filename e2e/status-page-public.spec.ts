import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Sensor } from '@monitor/contracts';
import type { Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { collectProblems } from './support/page';
import { ADMIN } from './support/session';

jest.setTimeout(180_000);

const PHONE = { width: 360, height: 740 } as const;
/** Long texts on purpose: they are what pushes a narrow page wider than the screen. */
const LONG_NAME = 'Payment gateway health endpoint for the European customers and partners';
const HISTORY_DAYS = 90;

/** A local HTTP service that answers 200: the sensor probing it is up. */
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

/** Creates a published page with an announcement through the status pages' API. */
async function storePage(
  serverUrl: string,
  cookie: string,
  slug: string,
  language: string,
  sensorIds: number[],
): Promise<void> {
  const headers = { 'content-type': 'application/json', cookie, origin: serverUrl };
  const created = await fetch(`${serverUrl}/api/status-pages`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      slug,
      title: 'Example Corporation service status for every customer-facing system',
      description: 'Everything customers use, watched every minute.\nSubscribe to updates on our blog.',
      published: true,
      history_days: HISTORY_DAYS,
      footer: 'Example Corporation · support@example.invalid',
      language,
      sections: [{ title: 'Customer-facing services in the European region', sensors: sensorIds }],
    }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: number };
  const announced = await fetch(`${serverUrl}/api/status-pages/${id}/announcements`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      title: 'Planned database maintenance',
      body: 'Short interruptions are possible tonight.',
      severity: 'warning',
    }),
  });
  expect(announced.status).toBe(201);
}

/** Listens for CSP violations from the first script on (an init script is not subject to the page's CSP). */
const WATCH_CSP = `window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`;

describe('The public status page in real Chromium (built server)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let target: Awaited<ReturnType<typeof startTarget>>;
  let browser: BrowserSession;
  let page: Page;
  let problems: string[];
  const url = (path: string) => `${server.url}${path}`;

  beforeAll(async () => {
    target = await startTarget();
    server = await startServer();
    const setup = await fetch(url('/api/setup'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ADMIN, mode: 'simple' }),
    });
    expect(setup.status).toBe(200);
    const cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!;
    const ids: number[] = [];
    for (const name of [LONG_NAME, 'Web shop']) {
      const created = await fetch(url('/api/sensors'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, origin: server.url },
        body: JSON.stringify({ name, type: 'http', target: target.url, interval: 30 }),
      });
      expect(created.status).toBe(201);
      ids.push(((await created.json()) as Sensor).id);
    }
    await storePage(server.url, cookie, 'example', '', ids);
    await storePage(server.url, cookie, 'beispiel', 'de', ids);
    browser = await openBrowser({ viewport: PHONE });
    page = browser.page;
    await page.addInitScript(WATCH_CSP);
    problems = collectProblems(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await target?.close();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  async function cspViolations(): Promise<string[]> {
    return page.evaluate<string[]>('window.__cspViolations');
  }

  it('renders at 360 px without sideways scrolling, console errors or CSP violations, with bars and their text', async () => {
    const response = await page.goto(url('/status/example'));
    expect(response!.status()).toBe(200);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    await page.getByText('Customer-facing services in the European region').waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      PHONE.width,
    );
    expect(await page.locator('.bars > i[title]').count()).toBe(2 * HISTORY_DAYS);
    expect(await page.locator('.sr-only').first().textContent()).toMatch(/^90 days, /);
    expect(await cspViolations()).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('has no serious accessibility violations, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(url('/status/example'));
      expect(await cspViolations()).toEqual([]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
        PHONE.width,
      );
    }
    const background = async () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await background();
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).not.toBe(light);
    expect(problems).toEqual([]);
  });

  it('speaks German when the page is set to it', async () => {
    await page.goto(url('/status/beispiel'));
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    await page.getByText('Die letzten 90 Tage').first().waitFor();
    expect(await page.locator('.sr-only').first().textContent()).toMatch(/^90 Tage, /);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(await cspViolations()).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('badges show as images on another origin and parse as SVG', async () => {
    const name = encodeURIComponent('Web shop');
    const badges = ['status.svg', 'uptime.svg?window=1d', 'uptime.svg', 'latency.svg'].map((kind) =>
      url(`/badge/example/${name}/${kind}`),
    );
    // about:blank is another origin than the server: the badges must be embeddable across origins.
    await page.setContent(badges.map((src) => `<img alt="" src="${src}">`).join(''));
    await page.waitForFunction('[...document.images].every((img) => img.complete)');
    expect(await page.evaluate<number[]>('[...document.images].map((img) => img.naturalWidth)')).toEqual(
      badges.map(() => expect.any(Number)),
    );
    expect(await page.evaluate<boolean>('[...document.images].every((img) => img.naturalWidth > 0)')).toBe(
      true,
    );
    for (const badge of badges) {
      const svg = await (await fetch(badge)).text();
      const parsed = await page.evaluate<string>(
        `(() => { const doc = new DOMParser().parseFromString(${JSON.stringify(svg)}, 'image/svg+xml');
          return doc.getElementsByTagName('parsererror').length > 0 ? 'error' : doc.documentElement.nodeName; })()`,
      );
      expect(parsed).toBe('svg');
    }
    expect(problems).toEqual([]);
  });
});
