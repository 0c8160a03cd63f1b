import type { Sensor } from '@monitor/contracts';
import type { Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { layoutMisfits } from './support/layout';
import { collectProblems } from './support/page';
import { setUpAdminSession } from './support/session';

jest.setTimeout(120_000);

const TOKEN = '[A-Za-z0-9_-]{32}';

/** A push sensor in the editor at 360 px: create, copy the URL and the lines, push, rotate, German. */
describe('push sensors in the dashboard (built server and dashboard, real Chromium, 360 px)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let problems: string[];
  /** The URL shown after create. */
  let firstUrl = '';

  const url = (path: string) => `${server.url}${path}`;
  const textOf = async (testId: string) => ((await page.getByTestId(testId).textContent()) ?? '').trim();
  const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser({
      viewport: { width: 360, height: 800 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = browser.page;
    problems = collectProblems(page);
    await setUpAdminSession(server.url, browser.context);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('creates a push sensor and shows its URL once, with copy buttons and curl and crontab lines', async () => {
    await page.goto(url('/sensors/new'));
    await page.getByLabel('Type').selectOption('push');
    expect(await page.locator('#sensor-target').count()).toBe(0);
    await page.getByLabel('Name').fill('nightly backup');
    await page.getByLabel('Interval (seconds)').fill('300');
    await page.getByRole('button', { name: 'Create sensor' }).click();
    await page.waitForURL(new RegExp(`/sensors/\\d+/edit$`));
    await page.getByTestId('push-panel').waitFor();
    await page.getByTestId('push-token-once').waitFor();

    const pushUrl = await textOf('push-url');
    expect(pushUrl).toMatch(new RegExp(`^${server.url}/api/push/${TOKEN}$`));
    expect(await textOf('push-curl')).toBe(`curl -fsS -m 10 --retry 3 '${pushUrl}'`);
    expect(await textOf('push-crontab')).toBe(
      `*/5 * * * * curl -fsS -m 10 --retry 3 '${pushUrl}' >/dev/null`,
    );

    await page.getByTestId('copy-url').click();
    await page.getByTestId('push-copy-status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
    expect(await clipboard()).toBe(pushUrl);
    await page.getByTestId('copy-crontab').click();
    await expect(clipboard()).resolves.toBe(`*/5 * * * * curl -fsS -m 10 --retry 3 '${pushUrl}' >/dev/null`);

    expect(await layoutMisfits(page, 'push editor')).toEqual([]);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The copied URL works: the sensor is up.
    const pushed = await fetch(pushUrl);
    expect(pushed.status).toBe(200);
    const id = Number(/\/sensors\/(\d+)\/edit$/.exec(page.url())![1]);
    const sensor = (await (await browser.context.request.get(url(`/api/sensors/${id}`))).json()) as Sensor;
    expect(sensor.status).toBe('up');
    firstUrl = pushUrl;

    // Nothing to run now: its results arrive by push.
    await page.goto(url(`/sensors/${id}`));
    await page.getByTestId('sensor-name').waitFor();
    await page.getByRole('button', { name: 'Refresh' }).waitFor();
    expect(await page.getByTestId('run-now').count()).toBe(0);
    await page.goto(url(`/sensors/${id}/edit`));
  });

  it('hides the token later, and rotates it after confirmation: the old URL stops working', async () => {
    const before = firstUrl;
    await page.reload();
    await page.getByTestId('push-token-masked').waitFor();
    expect(await textOf('push-url')).toBe(`${server.url}/api/push/••••••••`);
    expect(await page.getByTestId('copy-url').count()).toBe(0);

    await page.getByTestId('rotate-token').click();
    await page.getByTestId('confirm-rotate').waitFor();
    await page.getByRole('button', { name: 'Rotate now' }).click();
    await page.getByTestId('push-token-once').waitFor();
    const after = await textOf('push-url');
    expect(after).toMatch(new RegExp(`^${server.url}/api/push/${TOKEN}$`));
    expect(after).not.toBe(before);
    expect((await fetch(before)).status).toBe(404);
    expect((await fetch(after)).status).toBe(200);
    await page.getByTestId('copy-curl').click();
    await expect(clipboard()).resolves.toBe(`curl -fsS -m 10 --retry 3 '${after}'`);
    expect(await layoutMisfits(page, 'push editor after rotate')).toEqual([]);
  });

  it('speaks German', async () => {
    const api = browser.context.request;
    expect((await api.put(url('/api/settings'), { data: { ui: { language: 'de' } } })).status()).toBe(200);
    await page.reload();
    await page.getByRole('heading', { name: 'Push-URL' }).waitFor();
    await page.getByRole('button', { name: 'Token erneuern…' }).waitFor();
    expect(await page.getByTestId('push-token-masked').textContent()).toContain('Das Token ist verborgen.');
    expect(await layoutMisfits(page, 'push editor (de)')).toEqual([]);
    expect(problems).toEqual([]);
  });
});
