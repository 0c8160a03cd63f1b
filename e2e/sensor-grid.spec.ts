import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { Incident, Sensor } from '@monitor/contracts';
import type { APIRequestContext, Cookie, Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { setUpAdminSession } from './support/session';
import { clippedCardButtons, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';

jest.setTimeout(300_000);

/** A local HTTP service answering 200 on /ok and 500 on anything else. */
async function startTarget(): Promise<{ base: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const ok = request.url === '/ok';
    response.writeHead(ok ? 200 : 500, { 'content-type': 'text/plain' });
    response.end(ok ? 'ok' : 'broken');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('The sensor grid on the status page (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let target: Awaited<ReturnType<typeof startTarget>>;
  let browser: BrowserSession;
  let page: Page;
  let api: APIRequestContext;
  let healthy: Sensor;
  let broken: Sensor;
  const problems: string[] = [];

  const url = (path: string) => `${server.url}${path}`;
  const card = (sensor: Sensor) => page.getByTestId(`sensor-row-${sensor.id}`);
  const cards = () => page.locator('[data-testid="sensor-list"] > li');
  const statusOf = (sensor: Sensor) => card(sensor).getByTestId('sensor-row-status');
  const cardNames = async () =>
    cards().evaluateAll((items) => items.map((item) => item.getAttribute('data-sensor-name')));
  const create = async (data: Record<string, unknown>): Promise<Sensor> => {
    const response = await api.post(url('/api/sensors'), { data });
    expect(response.status()).toBe(201);
    return (await response.json()) as Sensor;
  };

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
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    await setUpAdminSession(server.url, browser.context);
    expect((await api.post(url('/api/sites'), { data: { name: 'Berlin', kind: 'local' } })).status()).toBe(
      201,
    );

    healthy = await create({
      name: 'Web Front',
      type: 'http',
      target: `${target.base}/ok`,
      interval: 1,
      group: 'Web',
      tags: ['prod', 'frontend'],
      site: 'Berlin',
    });
    broken = await create({
      name: 'Broken API',
      type: 'http',
      target: `${target.base}/fail`,
      interval: 1,
      retries: 1,
      group: 'API',
      tags: ['prod'],
      site: 'Berlin',
    });
    const groups = ['Web', 'API', 'DB'];
    for (let i = 1; i <= 10; i++) {
      await create({
        name: `Paused ${String(i).padStart(2, '0')}`,
        type: 'http',
        target: `http://127.0.0.1:9/paused-${i}`,
        enabled: false,
        group: groups[i % 3],
        tags: i % 2 === 0 ? ['staging'] : ['prod'],
      });
    }
  });

  afterAll(async () => {
    await browser?.close();
    await target?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  it('shows every sensor with its status, and filters that narrow the grid and live in the URL', async () => {
    await page.goto(url('/'));
    await statusOf(healthy).filter({ hasText: 'Up' }).waitFor({ timeout: 15_000 });
    await statusOf(broken).filter({ hasText: 'Down' }).waitFor({ timeout: 15_000 });
    expect(await cards().count()).toBe(12);
    expect(await card(healthy).getByTestId('sensor-row-site').textContent()).toContain('Berlin');
    expect(await card(healthy).getByTestId('sensor-row-group').textContent()).toContain('Web');
    expect(await card(healthy).getByTestId('sensor-row-tag').allTextContents()).toEqual([
      'Tag: #prod',
      'Tag: #frontend',
    ]);
    await card(healthy).getByTestId('sensor-sparkline').waitFor();
    expect(await page.getByTestId('summary-paused').textContent()).toContain('10');
    expect(await page.getByTestId('summary-down').textContent()).toContain('1');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({
      path: join(SCREENSHOTS_DIR, 'status.png'),
      fullPage: true,
    });
    // Every button lies wholly inside its card, also on the card with the most actions (Broken API).
    expect(await clippedCardButtons(page)).toEqual([]);

    await page.getByTestId('grid-filter-q').fill('broken');
    await waitFor(async () => (await cards().count()) === 1);
    expect(await cardNames()).toEqual(['Broken API']);
    expect(page.url()).toContain('q=broken');
    await page.reload();
    await card(broken).waitFor();
    expect(await cards().count()).toBe(1);
    expect(await page.getByTestId('grid-filter-q').inputValue()).toBe('broken');

    await page.getByTestId('grid-filter-q').fill('');
    await page.getByTestId('summary-paused').click();
    await waitFor(async () => (await cards().count()) === 10);
    await page.getByTestId('grid-filter-group').selectOption('Web');
    await waitFor(async () => (await cards().count()) === 3);
    await page.getByTestId('grid-filter-tag').selectOption('staging');
    await waitFor(async () => (await cards().count()) === 1);
    expect(await cardNames()).toEqual(['Paused 06']);
    const filtered = new URL(page.url());
    expect(Object.fromEntries(filtered.searchParams)).toEqual({
      status: 'paused',
      group: 'Web',
      tag: 'staging',
    });
    await page.reload();
    await page.getByTestId('sensor-list').locator('li').first().waitFor();
    expect(await cardNames()).toEqual(['Paused 06']);
    expect(await page.getByTestId('summary-paused').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('grid-filter-group').inputValue()).toBe('Web');
    expect(await page.getByTestId('grid-filter-tag').inputValue()).toBe('staging');

    await page.getByTestId('summary-down').click();
    await page.getByTestId('grid-filter-group').selectOption('');
    await page.getByTestId('grid-filter-tag').selectOption('');
    await waitFor(async () => (await cards().count()) === 1);
    expect(await cardNames()).toEqual(['Broken API']);
    expect(problems).toEqual([]);
  });

  /** Opens the ⋯ menu of a card and picks the item named `name`. */
  const pick = async (sensor: Sensor, name: string) => {
    await card(sensor).getByTestId('sensor-menu').click();
    await card(sensor).getByRole('menuitem', { name, exact: true }).click();
  };

  it('lets an administrator reorder with the keyboard, and saves the full order', async () => {
    await page.goto(url('/'));
    await card(healthy).waitFor();
    // Rearranging is offered in the saved order.
    await page.getByTestId('order-saved').click();
    await waitFor(async () => (await cardNames())[0] === 'Web Front');
    const before = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
    expect(before[0].id).toBe(healthy.id);
    expect(before[1].id).toBe(broken.id);
    // Move "Broken API" up with the keyboard: open its menu, go to Move up and press Enter.
    await card(broken).getByTestId('sensor-menu').focus();
    await page.keyboard.press('Enter');
    await card(broken).getByRole('menu').waitFor();
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowUp');
    expect(await page.evaluate<string>('document.activeElement.textContent.trim()')).toBe('Move up');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await cardNames())[0] === 'Broken API');
    await waitFor(async () => {
      const after = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
      return after[0].id === broken.id && after[1].id === healthy.id;
    });
    const after = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
    expect(after.map((s) => s.id).slice(2)).toEqual(before.map((s) => s.id).slice(2));
    // The focus stayed on the moved card (on its menu button).
    expect(
      await page.evaluate<string | null>(
        "document.activeElement?.closest('li')?.getAttribute('data-sensor-name') ?? null",
      ),
    ).toBe('Broken API');
    expect(await page.getByTestId('grid-announcement').textContent()).toContain(
      'Broken API moved to position 1',
    );
    // And down again.
    await pick(broken, 'Move down');
    await waitFor(async () => {
      const list = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
      return list[0].id === healthy.id;
    });

    // Drag and drop: the third card dropped on the first goes before it.
    const third = before[2];
    await card(third).dragTo(card(healthy));
    await waitFor(async () => {
      const list = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
      return list[0].id === third.id && list[1].id === healthy.id && list[2].id === broken.id;
    });
    expect((await cardNames())[0]).toBe(third.name);
    // Put it back with the keyboard buttons, so the other tests see the original order.
    await pick(third, 'Move down');
    await waitFor(async () => {
      const list = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
      return list[0].id === healthy.id && list[1].id === third.id;
    });
    await pick(third, 'Move down');
    await waitFor(async () => {
      const list = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
      return list.map((s) => s.id).join() === before.map((s) => s.id).join();
    });
    await page.getByTestId('order-problems').click();
    await waitFor(async () => (await cardNames())[0] === 'Broken API');
    expect(problems).toEqual([]);
  });

  it('runs a sensor now and shows the result; pauses and resumes it', async () => {
    await page.goto(url('/'));
    await statusOf(healthy).filter({ hasText: 'Up' }).waitFor({ timeout: 15_000 });
    await pick(healthy, 'Run now');
    await card(healthy)
      .getByTestId('sensor-row-feedback')
      .filter({ hasText: 'Run now: succeeded: HTTP 200' })
      .waitFor();

    await pick(healthy, 'Pause');
    await statusOf(healthy).filter({ hasText: 'Paused' }).waitFor();
    await pick(healthy, 'Resume');
    await waitFor(async () => !((await statusOf(healthy).textContent()) ?? '').includes('Paused'));
    await statusOf(healthy).filter({ hasText: 'Up' }).waitFor({ timeout: 15_000 });
    expect(problems).toEqual([]);
  });

  it('acknowledges the open incident of a down sensor with a note', async () => {
    await page.goto(url('/'));
    await statusOf(broken).filter({ hasText: 'Down' }).waitFor({ timeout: 15_000 });
    await pick(broken, 'Acknowledge…');
    await card(broken).getByRole('dialog', { name: 'Acknowledge Broken API' }).waitFor();
    await card(broken).getByLabel('Note for acknowledging Broken API (optional)').fill('Looking into it');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await card(broken).getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await card(broken)
      .getByTestId('sensor-row-feedback')
      .filter({ hasText: 'Acknowledged by admin' })
      .waitFor();
    const incidents = (await (await api.get(url(`/api/incidents?sensor=${broken.id}`))).json()) as Incident[];
    expect(incidents[0].acknowledged).toBe(true);
    expect(incidents[0].note).toBe('Looking into it');
    expect(problems).toEqual([]);
  });

  it('shows a viewer no action buttons', async () => {
    const adminCookies: Cookie[] = await browser.context.cookies();
    const made = await api.post(url('/api/users'), {
      data: { username: 'watcher', password: 'watching closely', role: 'viewer' },
    });
    expect(made.status()).toBe(201);
    await browser.context.clearCookies();
    const login = await api.post(url('/api/login'), {
      data: { username: 'watcher', password: 'watching closely' },
    });
    expect(login.status()).toBe(200);
    try {
      await page.goto(url('/'));
      await statusOf(broken).filter({ hasText: 'Down' }).waitFor({ timeout: 15_000 });
      expect(await cards().count()).toBe(12);
      expect(await page.getByTestId('sensor-list').getByRole('button').count()).toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      await browser.context.clearCookies();
      await browser.context.addCookies(adminCookies);
    }
    expect(problems).toEqual([]);
  });

  it('draws only the visible cards of 2,000 sensors and reaches the last one by scrolling', async () => {
    const total = 2_000;
    const existing = 12;
    const names = Array.from(
      { length: total - existing },
      (_, i) => `Bulk ${String(i + 1).padStart(4, '0')}`,
    );
    for (let start = 0; start < names.length; start += 40) {
      await Promise.all(
        names.slice(start, start + 40).map((name) =>
          create({
            name,
            type: 'tcp',
            target: '127.0.0.1:9',
            enabled: false,
            group: 'Bulk',
            tags: ['bulk'],
          }),
        ),
      );
    }
    const all = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
    expect(all.length).toBe(total);
    const last = all[all.length - 1];

    const started = Date.now();
    await page.goto(url('/'));
    await cards().first().waitFor({ timeout: 30_000 });
    const elapsed = Date.now() - started;
    console.log(`sensor grid: ${total} sensors, navigation to first cards in ${elapsed} ms`);

    const drawn = await cards().count();
    expect(drawn).toBeGreaterThan(0);
    expect(drawn).toBeLessThan(200);
    expect(await page.getByTestId('summary-all').textContent()).toContain(String(total));

    // The page scrolls, not a box inside it.
    await page.evaluate('window.scrollTo(0, document.scrollingElement.scrollHeight)');
    await page.getByTestId(`sensor-row-${last.id}`).waitFor({ timeout: 10_000 });
    expect(await page.getByTestId(`sensor-row-${last.id}`).isVisible()).toBe(true);
    expect(await cards().count()).toBeLessThan(200);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
