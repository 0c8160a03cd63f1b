import { rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Sensor } from '@monitor/contracts';
import type { Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { openBrowser, type BrowserSession } from './support/browser';
import { setUpAdminSession, apiAs } from './support/session';
import { collectProblems, waitFor } from './support/page';

jest.setTimeout(120_000);

const KEY = 'k3y-never-shown-again';
const BODY = '{"token":"b0dy-secret"}';
const PASSWORD = 'pa55-basic-secret';
const STORED = '__stored__';
const PLACEHOLDER = 'stored — retype to change';

/** Header values, the body and the basic auth password: masked in the editor, kept on save. */
describe('Sensor editor: secret http options (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let problems: string[];
  let port = 0;
  const seen: { method: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      response.writeHead(200).end('ok');
    });
  });

  const url = (path: string) => `${server.url}${path}`;

  const api = <T>(method: string, path: string, body?: unknown) =>
    apiAs<T>(server.url, browser.context, method, path, body);

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = browser.page;
    problems = collectProblems(page);
    await setUpAdminSession(server.url, browser.context);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    port = (http.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await browser?.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  it('creates a sensor with secret options, then saves an edit that keeps every one of them', async () => {
    await page.goto(url('/sensors/new'));
    await page.getByRole('heading', { level: 1, name: 'New sensor' }).waitFor();
    await page.getByLabel('Type', { exact: true }).selectOption('http');
    await page.getByLabel('Name', { exact: true }).fill('Billing API');
    await page.locator('#sensor-target').fill(`http://127.0.0.1:${port}/api`);
    await page.getByLabel('Method').selectOption('POST');
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 1 name').fill('X-Api-Key');
    await page.getByLabel('Header 1 value').fill(KEY);
    await page.getByLabel('Request body').fill(BODY);
    await page.getByLabel('Basic auth user').fill('billing');
    await page.getByLabel('Basic auth password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create sensor' }).click();
    await page.waitForURL(/\/\?highlight=\d+$/);
    const id = Number(new URL(page.url()).searchParams.get('highlight'));
    expect((await api<Sensor>('GET', `/api/sensors/${id}`)).body.options).toEqual({
      method: 'POST',
      headers: { 'X-Api-Key': STORED },
      body: STORED,
      basic_auth_user: 'billing',
      basic_auth_password: STORED,
    });

    await page.goto(url(`/sensors/${id}/edit`));
    await page.getByRole('heading', { level: 1, name: 'Edit Billing API' }).waitFor();
    const value = page.getByLabel('Header 1 value');
    await expect(value.inputValue()).resolves.toBe('');
    await expect(value.getAttribute('placeholder')).resolves.toBe(PLACEHOLDER);
    await expect(page.getByLabel('Header 1 name').inputValue()).resolves.toBe('X-Api-Key');
    const body = page.getByLabel('Request body');
    await expect(body.inputValue()).resolves.toBe('');
    await expect(body.getAttribute('placeholder')).resolves.toBe(PLACEHOLDER);
    await expect(page.getByLabel('Basic auth user').inputValue()).resolves.toBe('billing');
    await expect(page.getByLabel('Basic auth password').inputValue()).resolves.toBe('');
    const html = await page.content();
    for (const secret of [KEY, 'b0dy-secret', PASSWORD]) expect(html).not.toContain(secret);

    await page.getByLabel('Name', { exact: true }).fill('Billing API v2');
    const put = page.waitForRequest((request) => request.method() === 'PUT');
    await page.getByRole('button', { name: 'Save' }).click();
    const sent = (await put).postDataJSON() as { options: Record<string, unknown> };
    expect(sent.options).toEqual({
      method: 'POST',
      headers: { 'X-Api-Key': STORED },
      body: STORED,
      basic_auth_user: 'billing',
      basic_auth_password: STORED,
    });
    await page.getByTestId('sensor-name').filter({ hasText: 'Billing API v2' }).waitFor();

    // The stored values are unchanged: a probe sends the originals.
    seen.length = 0;
    expect((await api('POST', `/api/sensors/${id}/probe`)).status).toBe(200);
    await waitFor(() => seen.length > 0);
    expect(seen[0]).toMatchObject({ method: 'POST', body: BODY });
    expect(seen[0].headers['x-api-key']).toBe(KEY);
    expect(seen[0].headers.authorization).toBe(
      `Basic ${Buffer.from(`billing:${PASSWORD}`).toString('base64')}`,
    );
    expect(problems).toEqual([]);
  });

  it('labels the basic auth fields in German', async () => {
    expect((await api('PUT', '/api/settings', { ui: { language: 'de' } })).status).toBe(200);
    await page.goto(url('/sensors/new'));
    await page.getByLabel('Basic-Auth-Benutzer').waitFor();
    await page.getByLabel('Basic-Auth-Passwort').waitFor();
    expect((await api('PUT', '/api/settings', { ui: { language: 'en' } })).status).toBe(200);
  });
});
