import { seriousAxeViolations } from './support/axe';
import { mkdir, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { startServer } from '../apps/monitor/test/support/server-process';
import { openBrowser, type BrowserSession } from './support/browser';
import { setUpAdminSession } from './support/session';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';

jest.setTimeout(90_000);

const SCREENSHOT = join(SCREENSHOTS_DIR, 'channels.png');

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A local HTTP receiver that records every request and answers with `status`. */
async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  status: { code: number };
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const status = { code: 200 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(status.code, { 'content-type': 'text/plain' });
      response.end(status.code < 300 ? 'ok' : 'receiver broke');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    status,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Channels page (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let problems: string[];

  beforeAll(async () => {
    server = await startServer();
    receiver = await startReceiver();
    browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    problems = collectProblems(browser.page);
    await setUpAdminSession(server.url, browser.context);
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  it('creates a webhook channel, tests it, keeps its secret on edit, and reports a failing receiver', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/channels`);
    await page.getByRole('heading', { level: 1, name: 'Channels' }).waitFor({ state: 'visible' });
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'Channels' }).getAttribute('aria-current')).resolves.toBe(
      'page',
    );

    // Create.
    await page.getByRole('button', { name: 'New channel' }).click();
    const form = page.getByTestId('channel-form');
    await form.getByLabel('Name', { exact: true }).fill('Ops hook');
    await form.getByLabel('Type').selectOption('webhook');
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('Signing secret').fill('s3cret-value');
    await expect(page.locator('.recipe ol li').count()).resolves.toBeGreaterThan(0);
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('channel-Ops hook').waitFor({ state: 'visible' });
    expect(await page.getByTestId('channel-Ops hook').textContent()).toContain('Webhook (generic JSON)');

    const stored = (await (
      await fetch(`${server.url}/api/channels`, {
        headers: {
          cookie: (await browser.context.cookies(server.url)).map((c) => `${c.name}=${c.value}`).join('; '),
        },
      })
    ).json()) as { config: Record<string, unknown> }[];
    expect(stored[0]?.config['hmac_secret']).toBe('__stored__');

    // Test the saved channel.
    const result = page.getByTestId('channel-test-result');
    await form.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test message sent').waitFor({ state: 'visible' });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.headers['x-monitor-event']).toBe('test');
    expect(receiver.received[0]?.headers['x-monitor-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);

    // Edit without retyping the secret.
    await expect(form.getByLabel('Signing secret').getAttribute('placeholder')).resolves.toBe(
      'stored — retype to change',
    );
    await expect(form.getByLabel('Signing secret').inputValue()).resolves.toBe('');
    await form.getByLabel('Name', { exact: true }).fill('Ops hook renamed');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('channel-Ops hook renamed').waitFor({ state: 'visible' });
    await form.getByRole('button', { name: 'Send test' }).click();
    await waitFor(() => receiver.received.length === 2);
    expect(receiver.received[1]?.headers['x-monitor-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    await page.getByText('Test message sent').waitFor({ state: 'visible' });

    // A failing receiver: the server's error (502) is shown verbatim.
    receiver.status.code = 500;
    await form.getByRole('button', { name: 'Send test' }).click();
    await waitFor(async () => (await result.textContent())?.includes('500') ?? false);

    await mkdir(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // Delete with a confirmation step.
    await page.getByRole('button', { name: 'Delete Ops hook renamed' }).first().click();
    await page.locator('#confirm-delete').click();
    await page.getByText('No channels yet.').waitFor({ state: 'visible' });

    const unexpected = problems.filter(
      (line) => !/Failed to load resource: the server responded with a status of 502/.test(line),
    );
    expect(unexpected).toEqual([]);
  });

  it('previews the templates against a sample alert, and says when the built-in wording takes over', async () => {
    const { page } = browser;
    problems.splice(0);
    await page.goto(`${server.url}/channels`);
    await page.getByRole('button', { name: 'New channel' }).click();
    const form = page.getByTestId('channel-form');
    await form.getByLabel('Type').selectOption('webhook');
    await form.getByLabel('Title template').fill('{{.Name}} went {{.Status}}');
    await form.getByLabel('Body template').fill('{{.Message}} after {{.LatencyMS}} ms');
    await expect(page.getByTestId('preview-title').textContent()).resolves.toBe('Web shop went down');
    await expect(page.getByTestId('preview-message').textContent()).resolves.toBe('HTTP 503 after 123 ms');
    await form.getByLabel('Title template').fill('{{.Name');
    await expect(page.getByTestId('preview-title').textContent()).resolves.toBe('Web shop is down');
    await expect(page.getByTestId('template-preview').textContent()).resolves.toContain(
      'the built-in wording is used instead',
    );
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
