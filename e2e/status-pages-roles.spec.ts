import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Sensor, StatusPage } from '@monitor/contracts';
import type { APIRequestContext, Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { collectProblems } from './support/page';
import { ADMIN, setUpAdminSession, signInAs } from './support/session';

jest.setTimeout(120_000);

const VIEWER = { username: 'pagereader', password: 'viewer password 1' } as const;
const OPERATOR = { username: 'pageoperator', password: 'operator password 1' } as const;
const CONFIG_FILE = `sensors:
  - name: Primary database
    type: tcp
    target: '127.0.0.1:9'
    enabled: false
status_pages:
  - slug: declared
    title: Declared page
    published: true
    sections:
      - title: Data
        sensors: ['Primary database']
`;

describe('Status pages by role, and one declared in the configuration file (built server, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let api: APIRequestContext;
  let problems: string[];
  let configDir: string;
  /** A page made through the API, listing the file's sensor and one of the API's. */
  let made: StatusPage;

  const url = (path: string) => `${server.url}${path}`;
  const write = (method: 'post' | 'put' | 'delete', path: string, body?: unknown) =>
    api.fetch(url(path), { method, data: body, headers: { origin: server.url } });
  const stored = async (): Promise<StatusPage> =>
    (await (await api.get(url(`/api/status-pages/${made.id}`))).json()) as StatusPage;
  const shown = async () =>
    (await page.getByTestId('sensor-name').allTextContents()).map((text) => text.trim());

  async function openMade(): Promise<void> {
    await page.goto(url(`/status-pages/${made.id}`));
    await page.getByTestId('page-form').waitFor();
    await page.waitForLoadState('networkidle');
  }

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
    api = browser.context.request;
    problems = collectProblems(page);
    await setUpAdminSession(server.url, browser.context);

    const sensor = await write('post', '/api/sensors', {
      name: 'Web shop',
      type: 'tcp',
      target: '127.0.0.1:9',
      enabled: false,
    });
    expect(sensor.status()).toBe(201);
    const sensors = (await (await api.get(url('/api/sensors'))).json()) as Sensor[];
    const id = (name: string) => sensors.find((item) => item.name === name)?.id;
    const created = await write('post', '/api/status-pages', {
      slug: 'public',
      title: 'Public services',
      sections: [{ title: 'Everything', sensors: [id('Web shop'), id('Primary database')] }],
    });
    expect(created.status()).toBe(201);
    made = (await created.json()) as StatusPage;
    for (const account of [
      { ...VIEWER, role: 'viewer' },
      { ...OPERATOR, role: 'operator' },
    ]) {
      expect((await write('post', '/api/users', account)).status()).toBe(201);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
    if (configDir) await rm(configDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    problems.length = 0;
  });

  it('marks a declared page in the list and keeps it read-only for an administrator, who can still announce on it', async () => {
    await page.goto(url('/status-pages'));
    const item = page.getByTestId('status-page-declared');
    await item.waitFor();
    expect(await item.textContent()).toContain('From configuration file');
    expect(await item.getByRole('button').count()).toBe(0);
    await item.getByRole('link', { name: 'Details of Declared page' }).click();

    await page.getByText('Declared in the configuration file: change it there.', { exact: false }).waitFor();
    expect(await shown()).toEqual(['Primary database']);
    expect(await page.getByRole('button', { name: /^(Save|Add section|Move|Remove)\b/ }).count()).toBe(0);
    await expect(
      page.getByTestId('page-form').getByLabel('Title', { exact: true }).isDisabled(),
    ).resolves.toBe(true);
    await page.getByTestId('announcement-form').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('lets an operator announce on a page it cannot change', async () => {
    await signInAs(server.url, browser.context, OPERATOR);
    try {
      await openMade();
      await page.getByTestId('read-only').waitFor();
      expect(await page.getByRole('button', { name: /^(Save|Add section|Move|Remove)\b/ }).count()).toBe(0);
      await expect(
        page.getByTestId('page-form').getByLabel('Title', { exact: true }).isDisabled(),
      ).resolves.toBe(true);
      const announcements = page.getByTestId('announcements');
      await announcements.getByLabel('Title').fill('Maintenance tonight');
      await announcements.getByLabel('Severity').selectOption('critical');
      await announcements.getByRole('button', { name: 'Publish announcement' }).click();
      await announcements.getByTestId('announcement').filter({ hasText: 'Maintenance tonight' }).waitFor();
      expect((await stored()).announcements.map(({ title, severity }) => ({ title, severity }))).toEqual([
        { title: 'Maintenance tonight', severity: 'critical' },
      ]);
      await announcements
        .getByRole('button', { name: 'Delete the announcement Maintenance tonight' })
        .click();
      await page.locator('#confirm-delete-announcement').click();
      await announcements.getByTestId('no-announcements').waitFor();
      expect((await stored()).announcements).toEqual([]);
    } finally {
      await signInAs(server.url, browser.context, ADMIN);
    }
    expect(problems).toEqual([]);
  });

  it('shows a viewer the pages and their sensors without any control that changes them', async () => {
    expect(
      (
        await write('post', `/api/status-pages/${made.id}/announcements`, {
          title: 'All fine again',
          body: '',
          severity: 'info',
        })
      ).status(),
    ).toBe(201);
    await signInAs(server.url, browser.context, VIEWER);

    await page.goto(url('/status-pages'));
    await page.getByTestId('header-role').filter({ hasText: 'Viewer' }).waitFor({ state: 'attached' });
    await page.getByTestId('status-page-public').waitFor();
    expect(await page.getByRole('link', { name: 'Add status page' }).count()).toBe(0);
    expect(await page.locator('main button').count()).toBe(0);
    await page.getByRole('link', { name: 'Details of Public services' }).click();
    await page.getByTestId('read-only').waitFor();
    expect(await shown()).toEqual(['Web shop', 'Primary database']);
    expect(await page.getByTestId('drag-handle').count()).toBe(0);
    expect(await page.locator('main button').count()).toBe(0);
    await expect(
      page.getByTestId('page-form').getByLabel('Title', { exact: true }).isDisabled(),
    ).resolves.toBe(true);
    await expect(page.getByRole('switch', { name: 'Published' }).isDisabled()).resolves.toBe(true);
    await page.getByTestId('announcement').filter({ hasText: 'All fine again' }).waitFor();
    expect(await page.getByTestId('announcement-form').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The address of a new page leads a viewer away.
    await page.goto(url('/status-pages/new'));
    await page.waitForURL(url('/'));
    expect(problems).toEqual([]);
  });
});
