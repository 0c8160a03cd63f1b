import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { ExampleCounts, Sensor } from '@monitor/contracts';
import type { APIRequestContext, Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { setUpAdminSession, signInAs } from './support/session';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';

jest.setTimeout(150_000);

const SCREENSHOTS = SCREENSHOTS_DIR;
const OPERATOR = { username: 'oncall', password: 'operator password 1' } as const;
const VIEWER = { username: 'onlooker', password: 'viewer password 1' } as const;

/** A configuration file that declares one site and one channel (so sample data is refused). */
const CONFIG_FILE = `sites:
  - name: Data centre
    kind: local
    lat: 50.11
    lon: 8.68
channels:
  - name: Ops webhook
    type: webhook
    config:
      url: 'http://127.0.0.1:9/hook'
`;

/** The refusals a test provokes on purpose are logged by the browser too; nothing else may be. */
function unexpected(problems: readonly string[], ...statuses: number[]): string[] {
  const expected = new RegExp(
    `Failed to load resource: the server responded with a status of (${statuses.join('|')})`,
  );
  return problems.filter((line) => statuses.length === 0 || !expected.test(line));
}

describe('Administration page (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let api: APIRequestContext;
  let problems: string[];
  let workDir: string;
  let backupFile: string;

  const url = (path: string) => `${server.url}${path}`;
  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
  const text = async (testId: string) => (await page.getByTestId(testId).textContent())?.trim();

  async function counts(): Promise<ExampleCounts> {
    return (await (await api.get(url('/api/examples'))).json()) as ExampleCounts;
  }

  async function openAdmin(): Promise<void> {
    await page.goto(url('/settings/administration'));
    await heading('Administration').waitFor({ state: 'visible' });
    await page.getByTestId('sample-counts').waitFor({ state: 'visible' });
  }

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'monitor-e2e-admin-'));
    server = await startServer();
    browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = browser.page;
    api = browser.context.request;
    problems = collectProblems(page);
    await setUpAdminSession(server.url, browser.context);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    problems.length = 0;
  });

  it('loads the sample data, which the status page then lists', async () => {
    await openAdmin();
    const nav = page.getByRole('navigation', { name: 'Settings sections' });
    await expect(
      nav.getByRole('link', { name: 'Administration' }).getAttribute('aria-current'),
    ).resolves.toBe('page');
    expect(await text('sample-sensors')).toBe('0');

    await page.getByRole('button', { name: 'Load sample data' }).click();
    await page.getByTestId('sample-status').filter({ hasText: 'The sample data is loaded' }).waitFor();
    const loaded = await counts();
    expect(loaded.sensors).toBeGreaterThan(0);
    // Counts are shown in the notation of the active language (English here: 1,234).
    expect(await text('sample-sensors')).toBe(loaded.sensors.toLocaleString('en-US'));
    expect(await text('sample-results')).toBe(loaded.results.toLocaleString('en-US'));
    expect(await text('sample-sites')).toBe(loaded.sites.toLocaleString('en-US'));

    const sensors = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
    const samples = sensors.filter((sensor) => sensor.sample).map((sensor) => sensor.name);
    expect(samples).toHaveLength(loaded.sensors);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Status', exact: true })
      .click();
    const list = page.getByTestId('sensor-list');
    await list.waitFor({ state: 'visible' });
    for (const name of samples) await list.getByRole('link', { name, exact: true }).waitFor();
    expect(problems).toEqual([]);
  });

  it('downloads a history backup, removes the sample data, and restores the backup', async () => {
    await openAdmin();
    const backup = page.getByTestId('backup-section');
    await backup.getByLabel('Configuration and history').check();
    await backup.getByLabel('History of').selectOption('all');
    const link = backup.getByRole('link', { name: 'Download backup' });
    await expect(link.getAttribute('href')).resolves.toBe('/api/backup?scope=history&days=all');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toMatch(/\.json$/);
    backupFile = join(workDir, 'backup.json');
    await download.saveAs(backupFile);
    const document = JSON.parse(await readFile(backupFile, 'utf8')) as {
      format: string;
      scope: string;
      sensors: unknown[];
    };
    expect(document.format).toBe('monitor-backup');
    expect(document.scope).toBe('history');
    expect(document.sensors.length).toBeGreaterThan(0);

    await page.getByRole('button', { name: 'Remove sample data' }).click();
    await page.getByTestId('sample-status').filter({ hasText: 'The sample data was removed' }).waitFor();
    await waitFor(async () => (await text('sample-sensors')) === '0');
    expect(await text('sample-results')).toBe('0');
    expect(await text('sample-incidents')).toBe('0');
    expect(await text('sample-sites')).toBe('0');

    // Restore: choose the file, confirm in the dialog, see what came back.
    await page.getByLabel('Backup file').setInputFiles(backupFile);
    const dialog = page.getByRole('dialog', { name: 'Restore backup.json?' });
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.textContent()).toContain('replaced');
    await dialog.getByRole('button', { name: 'Replace the data' }).click();
    const result = page.getByTestId('restore-result');
    await result.waitFor({ state: 'visible' });
    await page.getByTestId('restore-status').filter({ hasText: 'The backup was restored.' }).waitFor();
    const sensorsRow = page.getByTestId('restore-counts').getByRole('row', { name: /^sensors\b/ });
    expect((await sensorsRow.getByRole('cell').textContent())?.trim()).toBe(
      document.sensors.length.toLocaleString('en-US'),
    );
    expect(await text('restore-safety-copy')).toMatch(/\S/);
    const restored = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
    expect(restored).toHaveLength(document.sensors.length);

    await page.getByRole('button', { name: 'Run checks' }).click();
    const checks = page.getByTestId('doctor-checks');
    await checks.waitFor({ state: 'visible' });
    expect(await checks.getByRole('listitem').count()).toBeGreaterThan(0);
    for (const verdict of await checks.locator('.verdict').allTextContents()) {
      expect(['OK', 'Problem']).toContain(verdict.trim());
    }
    expect(await text('doctor-summary')).toMatch(/^(All \d+ checks passed\.|\d+ problems? found\.)$/);

    expect(await seriousAxeViolations(page)).toEqual([]);
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'admin.png'), fullPage: true });
    expect(problems).toEqual([]);
  });

  it('keeps the restoring administrator signed in while the restore’s answer is on its way', async () => {
    // The restore ends every session of the restored accounts and hands this browser a fresh cookie
    // with its answer. Calls the dashboard makes before that answer arrives are refused (401); they
    // must not send the administrator to the sign-in page.
    const file = join(workDir, 'config-backup.json');
    await writeFile(file, await (await api.get(url('/api/backup'))).text());
    await openAdmin();
    let refusedMeanwhile = 0;
    await page.route('**/api/restore', async (route) => {
      // route.fetch() stores the answer's cookie at once; the browser would only have it with the
      // answer: until then it holds the old one.
      const before = await browser.context.cookies();
      const answer = await route.fetch();
      const after = await browser.context.cookies();
      await browser.context.addCookies(before);
      const refused = (response: { status(): number; url(): string }) =>
        response.status() === 401 && !response.url().endsWith('/api/restore');
      // Held back until the dashboard has been refused with the old cookie, and while it might ask
      // whether its session ended (it must wait for this answer before it asks). The restore's
      // `settings` event makes it read its session meanwhile too.
      const refusal = page.waitForResponse(refused, { timeout: 10_000 });
      await page.getByRole('button', { name: 'Run checks' }).click();
      const gotRefused = await refusal.then(
        () => true,
        () => false,
      );
      if (gotRefused) refusedMeanwhile += 1;
      await page.waitForResponse('**/api/session', { timeout: 3000 }).catch(() => undefined);
      await browser.context.addCookies(after);
      await route.fulfill({ response: answer });
    });
    await page.getByLabel('Backup file').setInputFiles(file);
    await page.getByRole('dialog').getByRole('button', { name: 'Replace the data' }).click();
    await page.getByTestId('restore-status').filter({ hasText: 'The backup was restored.' }).waitFor();
    await page.unroute('**/api/restore');
    expect(refusedMeanwhile).toBe(1);
    await page.waitForTimeout(500);
    expect(new URL(page.url()).pathname).toBe('/settings/administration');
    await heading('Administration').waitFor({ state: 'visible' });
    expect(unexpected(problems, 401)).toEqual([]);
  });

  it('shows the server’s refusal of a file that is not a backup, and restores nothing', async () => {
    const badFile = join(workDir, 'not-a-backup.json');
    const body = JSON.stringify({ format: 'something-else', format_version: 1, schema_version: 1 });
    await writeFile(badFile, body);
    const refusal = await api.post(url('/api/restore'), {
      data: body,
      headers: { 'content-type': 'application/json', origin: server.url },
    });
    expect(refusal.status()).toBe(400);
    const expected = ((await refusal.json()) as { error: string }).error;

    await openAdmin();
    const before = await counts();
    await page.getByLabel('Backup file').setInputFiles(badFile);
    await page.getByRole('dialog').getByRole('button', { name: 'Replace the data' }).click();
    const alert = page.getByTestId('restore-section').getByRole('alert');
    await alert.waitFor({ state: 'visible' });
    expect(await alert.textContent()).toContain(expected);
    expect(await page.getByTestId('restore-result').count()).toBe(0);
    // The restored sensors go on probing meanwhile, so stored results may grow; nothing else moves.
    const { results: resultsAfter, ...after } = await counts();
    const { results: resultsBefore, ...unchanged } = before;
    expect(after).toEqual(unchanged);
    expect(resultsAfter).toBeGreaterThanOrEqual(resultsBefore);

    // Cancelling the dialog sends nothing.
    let restores = 0;
    page.on('request', (request) => {
      if (request.url().endsWith('/api/restore')) restores++;
    });
    await page.getByLabel('Backup file').setInputFiles(badFile);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(restores).toBe(0);
    expect(unexpected(problems, 400)).toEqual([]);
  });

  it('fits a 360 px wide screen', async () => {
    await openAdmin();
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      await expect(page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBe(360);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('gives operators the doctor without backup, restore or sample-data buttons, and viewers no page', async () => {
    for (const account of [
      { ...OPERATOR, role: 'operator' },
      { ...VIEWER, role: 'viewer' },
    ]) {
      const created = await api.post(url('/api/users'), { data: account, headers: { origin: server.url } });
      expect(created.status()).toBe(201);
    }

    await signInAs(server.url, browser.context, OPERATOR);
    await openAdmin();
    await page.getByTestId('header-role').filter({ hasText: 'Operator' }).waitFor({ state: 'attached' });
    expect(await page.getByTestId('backup-section').count()).toBe(0);
    expect(await page.getByTestId('restore-section').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Load sample data' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Run checks' }).click();
    await page.getByTestId('doctor-checks').waitFor({ state: 'visible' });
    expect(await seriousAxeViolations(page)).toEqual([]);

    await signInAs(server.url, browser.context, VIEWER);
    await page.goto(url('/settings/administration'));
    await page.waitForURL(url('/'));
    await heading('Status').waitFor({ state: 'visible' });
    await page.goto(url('/settings'));
    await heading('Settings').waitFor({ state: 'visible' });
    const nav = page.getByRole('navigation', { name: 'Settings sections' });
    await nav.getByRole('link', { name: 'About' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Administration' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});

describe('Resources declared in the configuration file (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let problems: string[];
  let configDir: string;

  beforeAll(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'monitor-e2e-config-'));
    const configFile = join(configDir, 'monitor.yaml');
    await writeFile(configFile, CONFIG_FILE);
    server = await startServer({ args: ['--config', configFile] });
    browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
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
    if (server) await rm(server.dataDir, { recursive: true, force: true });
    if (configDir) await rm(configDir, { recursive: true, force: true });
  });

  it('marks the declared channel and site and offers no edit or delete for them', async () => {
    await page.goto(`${server.url}/channels`);
    const channel = page.getByTestId('channel-Ops webhook');
    await channel.waitFor({ state: 'visible' });
    expect((await channel.getByTestId('from-config').textContent())?.trim()).toContain(
      'From configuration file',
    );
    expect(await channel.getByRole('button').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.goto(`${server.url}/sites`);
    const site = page.getByTestId('site-Data centre');
    await site.waitFor({ state: 'visible' });
    expect((await site.getByTestId('from-config').textContent())?.trim()).toContain(
      'From configuration file',
    );
    expect(await site.getByRole('button').count()).toBe(0);
    await page.locator('app-site-map .site-marker-label').filter({ hasText: 'Data centre' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('shows the server’s refusal to load sample data on a file-configured installation', async () => {
    const refusal = await page.context().request.post(`${server.url}/api/examples`, {
      headers: { origin: server.url },
    });
    expect(refusal.status()).toBe(409);
    const expected = ((await refusal.json()) as { error: string }).error;

    await page.goto(`${server.url}/settings/administration`);
    await page.getByRole('button', { name: 'Load sample data' }).click();
    const alert = page.getByTestId('sample-section').getByRole('alert');
    await alert.waitFor({ state: 'visible' });
    expect(await alert.textContent()).toContain(expected);
    expect(unexpected(problems, 409)).toEqual([]);
  });
});
