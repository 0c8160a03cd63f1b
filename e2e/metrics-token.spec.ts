import type { Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { openBrowser, type BrowserSession } from './support/browser';
import { layoutMisfits } from './support/layout';
import { collectProblems } from './support/page';
import { setUpAdminSession, signInAs } from './support/session';

jest.setTimeout(150_000);

const VIEWER = { username: 'watcher', password: 'viewer password 1' } as const;

describe('Metrics token on the settings page (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let problems: string[];

  const url = (path: string) => `${server.url}${path}`;
  const scrapeWith = async (token: string): Promise<number> =>
    (await fetch(url('/metrics'), { headers: { authorization: `Bearer ${token}` } })).status;

  async function openSettings(on: Page = page): Promise<void> {
    await on.goto(url('/settings'));
    await on.getByTestId('metrics-token-state').filter({ hasText: /\S/ }).waitFor();
  }

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
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('lets an administrator create a token shown once with a scrape configuration, replace and remove it (360 px)', async () => {
    await openSettings();
    const panel = page.getByTestId('metrics-token');
    await expect(panel.getByTestId('metrics-token-state').textContent()).resolves.toBe(
      'No metrics token is set.',
    );
    await panel.getByRole('button', { name: 'Create token' }).click();
    const value = panel.getByTestId('metrics-token-value');
    await value.waitFor();
    const first = (await value.textContent())!.trim();
    expect(first).toMatch(/^mt_/);
    const config = (await panel.getByTestId('metrics-scrape-config').textContent())!;
    expect(config).toContain(`targets: ['127.0.0.1:${server.port}']`);
    expect(config).toContain('type: Bearer');
    expect(config).toContain('credentials_file:');
    await expect(panel.getByTestId('metrics-token-state').textContent()).resolves.toMatch(
      /^A metrics token is set, made \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\.$/,
    );
    expect(await scrapeWith(first)).toBe(200);
    expect(await layoutMisfits(page, 'settings with a new metrics token at 360 px')).toEqual([]);

    // Shown once: a reload shows that one is set, never the token.
    await openSettings();
    await expect(panel.getByTestId('metrics-token-value').count()).resolves.toBe(0);
    expect(await page.content()).not.toContain(first);

    await panel.getByRole('button', { name: 'Replace token…' }).click();
    await panel
      .getByTestId('metrics-token-confirm')
      .getByRole('button', { name: 'Make a new token' })
      .click();
    await panel.getByTestId('metrics-token-status').filter({ hasText: 'old one no longer works' }).waitFor();
    const second = (await panel.getByTestId('metrics-token-value').textContent())!.trim();
    expect(second).not.toBe(first);
    expect(await scrapeWith(first)).toBe(401);
    expect(await scrapeWith(second)).toBe(200);

    await panel.getByRole('button', { name: 'Remove token…' }).click();
    await panel
      .getByTestId('metrics-token-confirm')
      .getByRole('button', { name: 'Remove the token' })
      .click();
    await panel.getByTestId('metrics-token-status').filter({ hasText: 'The token was removed.' }).waitFor();
    await expect(panel.getByTestId('metrics-token-value').count()).resolves.toBe(0);
    await expect(panel.getByTestId('metrics-token-state').textContent()).resolves.toBe(
      'No metrics token is set.',
    );
    expect(await scrapeWith(second)).toBe(401);
    expect(problems).toEqual([]);
  });

  it('speaks German', async () => {
    await browser.context.request.delete(url('/api/metrics-token'), { headers: { origin: server.url } });
    const set = await browser.context.request.put(url('/api/settings'), {
      data: { ui: { language: 'de' } },
      headers: { origin: server.url },
    });
    expect(set.status()).toBe(200);
    try {
      await openSettings();
      const panel = page.getByTestId('metrics-token');
      await panel.getByRole('heading', { name: 'Prometheus-Metrik-Token' }).waitFor();
      await expect(panel.getByTestId('metrics-token-state').textContent()).resolves.toBe(
        'Es ist kein Metrik-Token festgelegt.',
      );
      await panel.getByRole('button', { name: 'Token erzeugen' }).waitFor();
    } finally {
      await browser.context.request.put(url('/api/settings'), {
        data: { ui: { language: 'en' } },
        headers: { origin: server.url },
      });
    }
  });

  it('shows a viewer whether a token is set, with nothing to change (360 px)', async () => {
    const made = await browser.context.request.post(url('/api/metrics-token'), {
      headers: { origin: server.url },
    });
    expect(made.status()).toBe(200);
    const user = await browser.context.request.post(url('/api/users'), {
      data: { ...VIEWER, role: 'viewer' },
      headers: { origin: server.url },
    });
    expect(user.status()).toBe(201);
    const other = await openBrowser({
      viewport: { width: 360, height: 800 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    try {
      await signInAs(server.url, other.context, VIEWER);
      await openSettings(other.page);
      const panel = other.page.getByTestId('metrics-token');
      await expect(panel.getByTestId('metrics-token-state').textContent()).resolves.toMatch(
        /^A metrics token is set, made /,
      );
      await expect(panel.getByRole('button').count()).resolves.toBe(0);
      expect(await layoutMisfits(other.page, 'settings as a viewer at 360 px')).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
