import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { ClusterView } from '@monitor/contracts';
import type { APIRequestContext, Page } from 'playwright-core';

import { startServer, type RunningServer } from '../apps/monitor/test/support/server-process';
import { type PgCluster, startPostgresCluster } from '../apps/monitor/test/support/postgres-cluster';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { layoutMisfits } from './support/layout';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';
import { setUpAdminSession } from './support/session';

jest.setTimeout(180_000);

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 360, height: 740 };

/** Opens the administration page and waits for the instances to be listed. */
async function openInstances(page: Page, url: string, rows: number): Promise<void> {
  await page.goto(`${url}/settings/administration`);
  await page.getByRole('heading', { level: 2, name: 'Instances', exact: true }).waitFor({ state: 'visible' });
  await waitFor(async () => (await page.locator('[data-testid^="cluster-row-"]').count()) === rows, 20_000);
}

/** Screenshots at 1280 px (light) and 360 px (light and dark), each checked to fit. */
async function screenshots(page: Page, name: string): Promise<string[]> {
  const misfits: string[] = [];
  await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  try {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      misfits.push(...(await layoutMisfits(page, `${name} ${scheme} 360 px`)));
      await page
        .getByTestId('cluster-section')
        .screenshot({ path: join(SCREENSHOTS_DIR, `${name}-360-${scheme}.png`) });
    }
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(DESKTOP);
  }
  return misfits;
}

describe('Instances on the administration page: one process on SQLite (built server, real Chromium)', () => {
  let server: RunningServer;
  let browser: BrowserSession;

  beforeAll(async () => {
    server = await startServer({ env: { MONITOR_INSTANCE_NAME: 'solo' } });
    browser = await openBrowser({ viewport: DESKTOP, locale: 'en-US', timezoneId: 'UTC' });
    await setUpAdminSession(server.url, browser.context);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('says single instance on SQLite and lists this instance alive, with no way to remove it', async () => {
    const { page } = browser;
    const problems = collectProblems(page);
    await openInstances(page, server.url, 1);
    expect(await page.getByTestId('cluster-mode').textContent()).toBe(
      'Single instance on SQLite: this process does all the probing.',
    );
    expect((await page.getByTestId('cluster-self').textContent())?.trim()).toBe('This instance: solo');
    const row = page.getByTestId('cluster-row-solo');
    expect((await row.locator('th').textContent())?.trim()).toBe('solo (this instance)');
    expect(await row.getAttribute('data-state')).toBe('alive');
    expect((await row.locator('.state').textContent())?.trim()).toBe('● Alive');
    expect((await row.locator('.load').textContent())?.trim()).toBe('0');
    expect(await page.getByTestId('cluster-dead-notice').count()).toBe(0);
    expect(await row.getByRole('button').count()).toBe(0);

    await page.getByTestId('header-role').waitFor({ state: 'attached' });
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(await screenshots(page, 'admin-instances-single')).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('in German, fitting 360 px', async () => {
    const { page, context } = browser;
    const problems = collectProblems(page);
    const changed = await context.request.put(`${server.url}/api/settings`, {
      data: { ui: { language: 'de' } },
      headers: { origin: server.url },
    });
    expect(changed.status()).toBe(200);
    await page.goto(`${server.url}/settings/administration`);
    await page
      .getByRole('heading', { level: 2, name: 'Instanzen', exact: true })
      .waitFor({ state: 'visible' });
    await page.getByTestId('cluster-row-solo').waitFor({ state: 'visible' });
    expect(await page.getByTestId('cluster-mode').textContent()).toBe(
      'Einzelne Instanz auf SQLite: Dieser Prozess prüft alles.',
    );
    expect((await page.getByTestId('cluster-row-solo').locator('.state').textContent())?.trim()).toBe(
      '● Läuft',
    );
    expect(await screenshots(page, 'admin-instances-single-de')).toEqual([]);
    expect(problems).toEqual([]);
  });
});

describe('Instances on the administration page: two processes on one PostgreSQL (built servers, real Chromium)', () => {
  let pg: PgCluster;
  let workDir: string;
  const servers = new Map<string, RunningServer>();
  let browser: BrowserSession;
  let api: APIRequestContext;
  let databaseUrl: string;

  const start = async (name: string, databaseUrl: string, config: string) => {
    const server = await startServer({
      dataDir: await mkdtemp(join(workDir, `${name}-`)),
      args: ['--config', config],
      env: { MONITOR_DATABASE_URL: databaseUrl, MONITOR_INSTANCE_NAME: name },
      timeoutMs: 60_000,
    });
    servers.set(name, server);
    return server;
  };

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'monitor-e2e-cluster-'));
    pg = await startPostgresCluster();
    databaseUrl = await pg.createDatabase();
    const config = join(workDir, 'monitor.yaml');
    await writeFile(config, 'cluster:\n  dead_after: 3s\n');
    await start('node-a', databaseUrl, config);
    await start('node-b', databaseUrl, config);
    browser = await openBrowser({ viewport: DESKTOP, locale: 'en-US', timezoneId: 'UTC' });
    api = browser.context.request;
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([...servers.values()].map((server) => server.stop('SIGKILL')));
    await pg?.stop();
    await rm(workDir, { recursive: true, force: true });
  });

  it('shows the dead instance notice live when the other is killed, and removes it after confirming', async () => {
    const a = servers.get('node-a')!;
    await setUpAdminSession(a.url, browser.context);
    for (let n = 0; n < 12; n++) {
      const created = await api.post(`${a.url}/api/sensors`, {
        data: { name: `s${n}`, type: 'http', target: 'http://127.0.0.1:9/', interval: 3600 },
        headers: { origin: a.url },
      });
      expect(created.status()).toBe(201);
    }
    const { page } = browser;
    const problems = collectProblems(page);
    await openInstances(page, a.url, 2);
    // The loads arrive by the debounced refresh after the sensor events: both share the 12.
    const loads = async () =>
      Promise.all(
        ['node-a', 'node-b'].map(async (name) =>
          Number((await page.getByTestId(`cluster-row-${name}`).locator('.load').textContent())?.trim()),
        ),
      );
    await waitFor(async () => {
      const [x, y] = await loads();
      return x > 0 && y > 0 && x + y === 12;
    }, 20_000);
    expect((await page.getByTestId('cluster-mode').textContent())?.trim()).toBe(
      'Cluster on PostgreSQL: 2 live instances share the sensors; an instance counts as dead after 3 seconds without a heartbeat.',
    );
    expect((await page.getByTestId('cluster-self').textContent())?.trim()).toBe('This instance: node-a');
    expect((await page.getByTestId('cluster-row-node-a').locator('th').textContent())?.trim()).toBe(
      'node-a (this instance)',
    );
    for (const name of ['node-a', 'node-b'])
      expect(await page.getByTestId(`cluster-row-${name}`).getAttribute('data-state')).toBe('alive');
    expect(await page.getByTestId('cluster-dead-notice').count()).toBe(0);

    // A marker on the window proves the page is never reloaded from here on.
    await page.evaluate('window.__sameDocument = true');
    // New sensors reach the loads through the (debounced) sensor events, without a reload.
    for (let n = 12; n < 15; n++) {
      const created = await api.post(`${a.url}/api/sensors`, {
        data: { name: `s${n}`, type: 'http', target: 'http://127.0.0.1:9/', interval: 3600 },
        headers: { origin: a.url },
      });
      expect(created.status()).toBe(201);
    }
    await waitFor(async () => {
      const [x, y] = await loads();
      return x + y === 15;
    }, 20_000);
    const killed = await servers.get('node-b')!.stop('SIGKILL');
    servers.delete('node-b');
    expect(killed).toBeNull();

    const notice = page.getByTestId('cluster-dead-notice');
    await notice.waitFor({ state: 'visible', timeout: 30_000 });
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    const view = (await (await api.get(`${a.url}/api/cluster`)).json()) as ClusterView;
    const dead = view.instances.find((i) => i.name === 'node-b');
    expect(dead?.gone).toBe('dead');
    const time = dead!.last_seen_at.slice(0, 19).replace('T', ' ');
    expect((await notice.locator('p').textContent())?.trim()).toBe(
      `Instance node-b stopped answering at ${time}; its sensors were taken over by the others.`,
    );
    expect(await notice.getAttribute('role')).toBe('alert');
    const rowB = page.getByTestId('cluster-row-node-b');
    expect(await rowB.getAttribute('data-state')).toBe('dead');
    expect((await rowB.locator('.state').textContent())?.trim()).toBe('✗ Dead');
    expect((await rowB.locator('.load').textContent())?.trim()).toBe('—');
    await waitFor(
      async () =>
        (await page.getByTestId('cluster-row-node-a').locator('.load').textContent())?.trim() === '15',
      20_000,
    );
    expect((await page.getByTestId('cluster-mode').textContent())?.trim()).toMatch(
      /^Cluster on PostgreSQL: 1 live instance shares/,
    );

    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(await screenshots(page, 'admin-instances-dead')).toEqual([]);

    // Cancelling removes nothing.
    await notice.getByRole('button', { name: 'Remove instance node-b' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove node-b from the list?' });
    await dialog.waitFor({ state: 'visible' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await rowB.count()).toBe(1);

    await notice.getByRole('button', { name: 'Remove instance node-b' }).click();
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await rowB.waitFor({ state: 'detached' });
    expect(await notice.count()).toBe(0);
    expect((await page.getByTestId('cluster-status').textContent())?.trim()).toBe(
      'Instance node-b was removed from the list.',
    );
    const after = (await (await api.get(`${a.url}/api/cluster`)).json()) as ClusterView;
    expect(after.instances.map((i) => i.name)).toEqual(['node-a']);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    expect(problems).toEqual([]);
  });

  it('lists a joining instance live, shows it stopped after a clean stop and removes it from its row', async () => {
    const { page } = browser;
    const problems = collectProblems(page);
    const config = join(workDir, 'monitor.yaml');
    await start('node-c', databaseUrl, config);
    const rowC = page.getByTestId('cluster-row-node-c');
    await rowC.waitFor({ state: 'visible', timeout: 20_000 });
    expect(await rowC.getAttribute('data-state')).toBe('alive');

    expect(await servers.get('node-c')!.stop('SIGTERM')).toBe(0);
    servers.delete('node-c');
    await waitFor(async () => (await rowC.getAttribute('data-state')) === 'stopped', 20_000);
    expect((await rowC.locator('.state').textContent())?.trim()).toBe('■ Stopped');
    expect(await page.getByTestId('cluster-dead-notice').count()).toBe(0);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await screenshots(page, 'admin-instances-stopped');

    await rowC.getByRole('button', { name: 'Remove instance node-c' }).click();
    await page
      .getByRole('dialog', { name: 'Remove node-c from the list?' })
      .getByRole('button', { name: 'Remove', exact: true })
      .click();
    await rowC.waitFor({ state: 'detached' });
    const after = (await (await api.get(`${servers.get('node-a')!.url}/api/cluster`)).json()) as ClusterView;
    expect(after.instances.map((i) => i.name)).toEqual(['node-a']);
    expect(problems).toEqual([]);
  });
});
