import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import type { Sensor } from '@monitor/contracts';
import type { APIRequestContext, Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';
import { ADMIN, setUpAdminSession, signInAs } from './support/session';
import { createSensors, drawnIds, startSwitchableTarget } from './support/status-board';

jest.setTimeout(300_000);

describe('The status page in its three densities (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  /** Answers the steady sensors; stays at 200. */
  let steady: Awaited<ReturnType<typeof startSwitchableTarget>>;
  /** Answers "Shop" (probed only by Run now); the tests switch it. */
  let flipping: Awaited<ReturnType<typeof startSwitchableTarget>>;
  /** Answers "Billing" (probed every second); the tests switch it. */
  let billingTarget: Awaited<ReturnType<typeof startSwitchableTarget>>;
  let browser: BrowserSession;
  let page: Page;
  let api: APIRequestContext;
  let problems: string[];
  let shop: Sensor;
  let billing: Sensor;
  let broken: Sensor;
  let all: Sensor[];

  const url = (path: string) => `${server.url}${path}`;
  const row = (sensor: Sensor) => page.getByTestId(`sensor-row-${sensor.id}`);
  const board = () => page.getByTestId('sensor-board');
  const runNow = async (sensor: Sensor) =>
    expect((await api.post(url(`/api/sensors/${sensor.id}/probe`))).status()).toBe(200);
  const statusOf = async (sensor: Sensor) =>
    ((await (await api.get(url(`/api/sensors/${sensor.id}`))).json()) as Sensor).status;
  const until = (sensor: Sensor, status: string) =>
    waitFor(async () => (await statusOf(sensor)) === status, 20_000);
  const choose = async (testId: string) => {
    const saved = page.waitForResponse(
      (response) => response.url().endsWith('/api/settings') && response.request().method() === 'PUT',
    );
    await page.getByTestId(testId).click();
    expect((await saved).status()).toBe(200);
    expect(await page.getByTestId(testId).getAttribute('aria-pressed')).toBe('true');
  };
  const open = async (path = '/') => {
    await page.goto(url(path));
    await board().locator('[data-status]').first().waitFor({ timeout: 15_000 });
  };

  beforeAll(async () => {
    await mkdir(SCREENSHOTS_DIR, { recursive: true });
    server = await startServer();
    steady = await startSwitchableTarget();
    flipping = await startSwitchableTarget();
    billingTarget = await startSwitchableTarget();
    browser = await openBrowser({
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = browser.page;
    api = browser.context.request;
    problems = collectProblems(page);
    await setUpAdminSession(server.url, browser.context);
    // No welcome tour over the pictures.
    expect((await api.post(url('/api/onboarding/tour'), { data: { version: 1 } })).status()).toBe(200);
    const http = (name: string, target: string, extra: Record<string, unknown> = {}) => ({
      name,
      type: 'http',
      target,
      interval: 3600,
      retries: 1,
      ...extra,
    });
    [shop, billing] = await createSensors(api, server.url, [
      http('Shop', flipping.url, { group: 'Web', tags: ['prod', 'eu'] }),
      http('Billing', billingTarget.url, { group: 'API', interval: 1 }),
    ]);
    await createSensors(
      api,
      server.url,
      Array.from({ length: 8 }, (_, i) => http(`Steady ${i + 1}`, steady.url, { group: 'Web', interval: 1 })),
    );
    [broken] = await createSensors(api, server.url, [
      http('Broken API', 'http://127.0.0.1:9/down', { group: 'API', tags: ['prod'], interval: 1 }),
    ]);
    await createSensors(
      api,
      server.url,
      Array.from({ length: 4 }, (_, i) => ({ ...http(`Paused ${i + 1}`, steady.url), enabled: false })),
    );
    all = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
    await runNow(shop);
    await until(broken, 'down');
    await until(billing, 'up');
    for (const sensor of all.filter((s) => s.name.startsWith('Steady'))) await until(sensor, 'up');
  });

  afterAll(async () => {
    await browser?.close();
    await steady?.close();
    await flipping?.close();
    await billingTarget?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  it('shows each sensor of the list as one row: state, name, group and tags, latency, uptime and the last 50 results', async () => {
    await open();
    await choose('density-list');
    expect(await board().getAttribute('data-density')).toBe('list');
    // The results below arrive as live events (a summary read has no latency for Run now results).
    await page.getByTestId('live-state').filter({ hasText: 'Live updates on' }).waitFor();
    // Shop has one success so far; two more, then two failures, through Run now in the browser.
    const before = (await (await api.get(url('/api/summary'))).json()) as {
      sensors: { id: number; recent: string; uptime_24h: number | null }[];
    };
    const earlier = before.sensors.find((s) => s.id === shop.id)!.recent;
    expect(earlier).toMatch(/^1+$/);
    const expected = (earlier + '0011').slice(-50);
    for (const status of [500, 500, 200, 200]) {
      flipping.status = status;
      await runNow(shop);
    }
    flipping.status = 200;
    const bar = row(shop).getByTestId('result-bar');
    const ups = expected.replace(/0/g, '').length;
    await waitFor(
      async () =>
        (await bar.getAttribute('aria-label')) === `Last 50: ${ups} up, ${expected.length - ups} down`,
    );
    const outcomes = await bar
      .locator('rect')
      .evaluateAll((rects) => rects.map((rect) => rect.getAttribute('data-outcome')));
    expect(outcomes).toHaveLength(50);
    expect(outcomes.slice(-5)).toEqual(['ok', 'fail', 'fail', 'ok', 'ok']);
    expect(outcomes.slice(0, 50 - expected.length).every((outcome) => outcome === 'none')).toBe(true);
    // The live results went into the bar: it matches what the server now reads back.
    const now = (await (await api.get(url('/api/summary'))).json()) as typeof before;
    expect(now.sensors.find((s) => s.id === shop.id)!.recent).toBe(expected);
    // The colours people know: success green, failure red, no result neutral (the theme's tokens).
    const colours = await page.evaluate<Record<string, string>>(`(() => {
      const bar = document.querySelector('[data-testid="sensor-row-${shop.id}"] [data-testid="result-bar"]');
      const fill = (outcome) => getComputedStyle(bar.querySelector('rect[data-outcome="' + outcome + '"]')).fill;
      const token = (name) => { const probe = document.createElement('span'); probe.style.color = 'var(' + name + ')'; document.body.append(probe); const colour = getComputedStyle(probe).color; probe.remove(); return colour; };
      return { ok: fill('ok'), fail: fill('fail'), none: fill('none'), success: token('--success'), danger: token('--danger') };
    })()`);
    expect(colours.ok).toBe(colours.success);
    expect(colours.fail).toBe(colours.danger);
    expect([colours.success, colours.danger]).not.toContain(colours.none);

    const text = async (testId: string) => ((await row(shop).getByTestId(testId).textContent()) ?? '').trim();
    expect(await row(shop).getByRole('link', { name: 'Shop' }).getAttribute('href')).toBe(
      `/sensors/${shop.id}`,
    );
    // Shop is only probed by Run now, which does not change a status: it has none yet.
    expect(await text('sensor-row-status')).toContain('Unknown');
    expect(await row(shop).locator('.meta').textContent()).toContain('Web · #prod · #eu');
    // Billing is probed on schedule: its last latency shows (Shop has only Run now results, which
    // the summary does not count as the sensor's last check).
    expect(((await row(billing).getByTestId('sensor-row-latency').textContent()) ?? '').trim()).toMatch(
      /^\d+(\.\d)? ms$/,
    );
    // No full hour of results yet: the 24 h uptime is unknown.
    expect(await text('sensor-row-uptime')).toContain('—');
    const height = await row(shop).evaluate((element) => element.getBoundingClientRect().height);
    expect(height).toBeLessThanOrEqual(24);
    expect(problems).toEqual([]);
  });

  it('opens the actions menu of a list row by keyboard: Run now, Pause, Escape', async () => {
    await open();
    expect(await board().getAttribute('data-density')).toBe('list');
    const trigger = row(shop).getByTestId('sensor-menu');
    expect(await trigger.getAttribute('aria-haspopup')).toBe('menu');
    await trigger.focus();
    await page.keyboard.press('Enter');
    const menu = row(shop).getByRole('menu');
    await menu.waitFor();
    expect(await trigger.getAttribute('aria-expanded')).toBe('true');
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('Run now'), expect.stringContaining('Pause')]),
    );
    // The focus is on the first item, Run now.
    await waitFor(
      async () => (await page.evaluate<string>('document.activeElement.textContent.trim()')) === 'Run now',
    );
    await page.keyboard.press('Enter');
    await row(shop)
      .getByTestId('sensor-row-feedback')
      .filter({ hasText: 'Run now: succeeded: HTTP 200' })
      .waitFor();
    expect(await menu.count()).toBe(0);

    // Arrow down opens it too; Escape closes it and gives the focus back to the button.
    await trigger.focus();
    await page.keyboard.press('ArrowDown');
    await menu.waitFor();
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(
      await page.evaluate<string | null>(
        "document.activeElement.closest('[data-status]')?.getAttribute('data-testid') + ' ' + document.activeElement.getAttribute('data-testid')",
      ),
    ).toBe(`sensor-row-${shop.id} sensor-menu`);
    expect(await trigger.getAttribute('aria-expanded')).toBe('false');

    // Pause is the second item.
    await page.keyboard.press('Enter');
    await menu.waitFor();
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate<string>('document.activeElement.textContent.trim()')).toBe('Pause');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await statusOf(shop)) === 'paused');
    await row(shop).getByTestId('sensor-row-status').filter({ hasText: 'Paused' }).waitFor();
    await trigger.click();
    await menu.getByRole('menuitem', { name: 'Resume' }).click();
    await waitFor(async () => (await statusOf(shop)) !== 'paused');
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Administrators can go to the editor from the menu.
    await trigger.click();
    await menu.getByRole('menuitem', { name: 'Edit' }).click();
    await page.waitForURL(url(`/sensors/${shop.id}/edit`));
    expect(problems).toEqual([]);
  });

  it('shows the wall as tiles named "<name>: <state>", with a tooltip on keyboard focus, problems first', async () => {
    await open();
    await choose('density-wall');
    const tile = row(broken).getByTestId('sensor-tile');
    expect(await tile.getAttribute('aria-label')).toBe('Broken API: Down');
    expect(await tile.getAttribute('href')).toBe(`/sensors/${broken.id}`);
    // Not colour alone: a down tile carries the cross.
    expect((await tile.textContent())?.trim()).toBe('✕');
    const tip = row(broken).getByTestId('sensor-tile-tip');
    expect(await tip.isVisible()).toBe(false);
    await page.keyboard.press('Tab'); // focus enters the page; then straight to the tile
    await tile.focus();
    await tip.waitFor({ state: 'visible' });
    expect(await tip.textContent()).toContain('Broken API');
    expect(await tip.textContent()).toContain('Down');
    const message = ((await (await api.get(url(`/api/sensors/${broken.id}`))).json()) as Sensor).message;
    expect(message).not.toBe('');
    expect(await tip.textContent()).toContain(message);
    // On hover as well.
    await page.keyboard.press('Tab');
    await tip.waitFor({ state: 'hidden' });
    await tile.hover();
    await tip.waitFor({ state: 'visible' });
    await page.mouse.move(1200, 790);
    await tip.waitFor({ state: 'hidden' });
    // The only down sensor comes first, whatever the saved order.
    expect((await drawnIds(page))[0]).toBe(broken.id);
    const size = await row(broken).evaluate((element) => element.getBoundingClientRect().width);
    expect(size).toBeLessThanOrEqual(24);
    // A click opens the sensor's page inside the app, without loading the document again.
    await page.evaluate('window.__sameDocument = true');
    await tile.click();
    await page.waitForURL(url(`/sensors/${broken.id}`));
    await page.getByRole('heading', { level: 1, name: 'Broken API' }).waitFor();
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await open();
    expect(problems).toEqual([]);
  });

  it('filters by state from the summary bar, with the counts and the URL to match', async () => {
    await choose('density-cards');
    await open();
    const count = async (status: string) =>
      Number(
        ((await page.getByTestId(`summary-${status}`).locator('.number').textContent()) ?? '').replace(
          /\D/g,
          '',
        ),
      );
    expect(await count('all')).toBe(all.length);
    expect(await count('down')).toBe(1);
    expect(await count('paused')).toBe(4);
    expect(await count('unknown')).toBe(1);
    expect(await count('up')).toBe(all.length - 6);
    await page.getByTestId('summary-down').click();
    await waitFor(async () => (await drawnIds(page)).join() === String(broken.id));
    expect(new URL(page.url()).searchParams.get('status')).toBe('down');
    expect(await page.getByTestId('summary-down').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('summary-all').getAttribute('aria-pressed')).toBe('false');
    // The counts follow the other filters, not the state filter.
    expect(await count('up')).toBe(all.length - 6);
    await page.getByTestId('grid-filter-group').selectOption('API');
    await waitFor(async () => (await count('all')) === 2);
    expect(await count('up')).toBe(1);
    await page.getByTestId('grid-filter-group').selectOption('');
    // Pressing it again shows every state.
    await page.getByTestId('summary-down').click();
    await waitFor(async () => (await drawnIds(page)).length === all.length);
    expect(new URL(page.url()).searchParams.has('status')).toBe(false);
    expect(await page.getByTestId('summary-all').getAttribute('aria-pressed')).toBe('true');
    await page.getByTestId('summary-paused').click();
    await waitFor(async () => (await drawnIds(page)).length === 4);
    await page.getByTestId('summary-all').click();
    await waitFor(async () => (await drawnIds(page)).length === all.length);
    expect(problems).toEqual([]);
  });

  it('remembers density and order per account', async () => {
    const operator = { username: 'olga', password: 'operating daily' };
    expect((await api.post(url('/api/users'), { data: { ...operator, role: 'operator' } })).status()).toBe(
      201,
    );
    await open();
    await choose('density-list');
    await choose('order-saved');
    // Every density the board ever shows while the page loads: the saved one only, no flash of cards.
    await page.addInitScript(`window.__densities = [];
      new MutationObserver(() => {
        const board = document.querySelector('[data-testid="sensor-board"]');
        const density = board && board.getAttribute('data-density');
        if (density && window.__densities.at(-1) !== density) window.__densities.push(density);
      }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-density'] });`);
    await page.reload();
    await board().locator('[data-status]').first().waitFor();
    expect(await board().getAttribute('data-density')).toBe('list');
    expect(await page.evaluate<string[]>('window.__densities')).toEqual(['list']);
    expect(await page.getByTestId('density-list').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('order-saved').getAttribute('aria-pressed')).toBe('true');

    await signInAs(server.url, browser.context, operator);
    try {
      await open();
      expect(await board().getAttribute('data-density')).toBe('cards');
      expect(await page.getByTestId('order-problems').getAttribute('aria-pressed')).toBe('true');
      await choose('density-wall');
    } finally {
      await signInAs(server.url, browser.context, ADMIN);
    }
    await open();
    expect(await board().getAttribute('data-density')).toBe('list');
    expect(await page.getByTestId('order-saved').getAttribute('aria-pressed')).toBe('true');
    await choose('order-problems');
    await choose('density-cards');
    expect(problems).toEqual([]);
  });

  it('shows an error and goes back to the earlier density when saving the choice fails', async () => {
    await open();
    expect(await board().getAttribute('data-density')).toBe('cards');
    // The connection breaks while saving.
    await page.route(/\/api\/settings$/, (route) =>
      route.request().method() === 'PUT' ? route.abort('connectionfailed') : route.continue(),
    );
    try {
      await page.getByTestId('density-wall').click();
      await page.getByRole('alert').filter({ hasText: 'The view could not be saved' }).waitFor();
      await waitFor(async () => (await board().getAttribute('data-density')) === 'cards');
      expect(await page.getByTestId('density-cards').getAttribute('aria-pressed')).toBe('true');
    } finally {
      await page.unroute(/\/api\/settings$/);
    }
    const settings = (await (await api.get(url('/api/settings'))).json()) as { ui: { density: string } };
    expect(settings.ui.density).toBe('cards');
    // The aborted request shows up as a console error of the browser itself.
    problems.splice(0, problems.length, ...problems.filter((problem) => !problem.includes('net::ERR')));
    expect(problems).toEqual([]);
  });

  it('puts a sensor that goes down at the top at once (problems first), and shows the saved order on request', async () => {
    await open();
    expect(await page.getByTestId('order-problems').getAttribute('aria-pressed')).toBe('true');
    await page.getByTestId('live-state').filter({ hasText: 'Live updates on' }).waitFor();
    expect((await drawnIds(page))[0]).toBe(broken.id);
    const billingAt = (await drawnIds(page)).indexOf(billing.id);
    expect(billingAt).toBeGreaterThan(0);
    // The focus is inside Billing's card when it moves.
    await row(billing).getByTestId('sensor-menu').focus();
    billingTarget.status = 500;
    try {
      await until(billing, 'down');
      await waitFor(async () => (await drawnIds(page))[0] === billing.id, 15_000);
    } finally {
      billingTarget.status = 200;
    }
    expect((await drawnIds(page))[1]).toBe(broken.id);
    expect(
      await page.evaluate<string | null>(
        "document.activeElement?.closest('[data-status]')?.getAttribute('data-testid') ?? null",
      ),
    ).toBe(`sensor-row-${billing.id}`);
    // In problems-first order rearranging is not offered, and the page says why.
    expect(await page.getByTestId('reorder-hint').textContent()).toContain('Choose Saved order to rearrange');
    await row(billing).getByTestId('sensor-menu').click();
    await row(billing).getByTestId('menu-run').waitFor();
    expect(await row(billing).getByTestId('move-up').count()).toBe(0);
    await page.keyboard.press('Escape');

    await choose('order-saved');
    const dashboard = ((await (await api.get(url('/api/sensors'))).json()) as Sensor[]).map((s) => s.id);
    await waitFor(async () => (await drawnIds(page)).join() === dashboard.join());
    await row(billing).getByTestId('sensor-menu').click();
    await row(billing).getByTestId('move-up').waitFor();
    await page.keyboard.press('Escape');
    await choose('order-problems');
    await until(billing, 'up');
    await waitFor(async () => (await drawnIds(page))[0] === broken.id, 15_000);
    expect(problems).toEqual([]);
  });

  it('has no serious accessibility violations in any density, and takes the pictures', async () => {
    for (const density of ['cards', 'list', 'wall'] as const) {
      await open();
      await choose(`density-${density}`);
      await page.mouse.move(0, 0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS_DIR, `status-${density}.png`) });
      // Every row has a fixed height: nothing in it may stick out.
      const outside = await page.evaluate<
        string[]
      >(`[...document.querySelectorAll('[data-testid="sensor-list"] > [data-status]')].flatMap((item) => {
        const box = item.getBoundingClientRect();
        return [...item.querySelectorAll('*')]
          .filter((inner) => inner.closest('[role="menu"], [role="tooltip"], dialog') === null && inner.getClientRects().length > 0)
          // Clipped by a box inside the item (which is checked itself): shows nothing outside.
          .filter((inner) => { for (let up = inner.parentElement; up && up !== item; up = up.parentElement) if (getComputedStyle(up).overflow !== 'visible') return false; return true; })
          .filter((inner) => { const b = inner.getBoundingClientRect(); return b.bottom > box.bottom + 0.5 || b.right > box.right + 0.5 || b.top < box.top - 0.5; })
          .map((inner) => item.getAttribute('data-testid') + ' ' + inner.tagName + '.' + inner.className);
      })`);
      expect(outside).toEqual([]);
      // The contract other tests and the benchmark rely on: every sensor element, and only those,
      // carries `sensor-row-<id>` together with `data-status`; the board names its density.
      const marked = await page.evaluate<string[]>(
        `[...document.querySelectorAll('[data-testid^="sensor-row-"][data-status]')].map((e) => e.getAttribute('data-testid'))`,
      );
      expect(marked).toEqual((await drawnIds(page)).map((id) => `sensor-row-${id}`));
      expect(marked).toHaveLength(all.length);
    }
    await choose('density-cards');
    expect(problems).toEqual([]);
  });

  it('labels the switches and the summary bar in German', async () => {
    expect((await api.put(url('/api/settings'), { data: { ui: { language: 'de' } } })).status()).toBe(200);
    try {
      await open();
      const label = async (testId: string) => ((await page.getByTestId(testId).textContent()) ?? '').trim();
      await waitFor(async () => (await label('order-problems')) === 'Probleme zuerst');
      expect(await label('order-saved')).toBe('Gespeicherte Reihenfolge');
      expect(await label('density-cards')).toBe('Karten');
      expect(await label('density-list')).toBe('Liste');
      expect(await label('density-wall')).toBe('Wand');
      expect(await label('summary-all')).toContain('Alle');
      expect(await label('summary-down')).toContain('Ausgefallen');
      expect(await label('summary-warn')).toContain('Instabil');
      expect(await page.getByRole('group', { name: 'Dichte' }).getByRole('button').count()).toBe(3);
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      expect((await api.put(url('/api/settings'), { data: { ui: { language: 'en' } } })).status()).toBe(200);
    }
    expect(problems).toEqual([]);
  });
});
