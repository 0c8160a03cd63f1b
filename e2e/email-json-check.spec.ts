import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { startSmtpPeer, type SmtpPeer } from '@monitor/notifiers/testing/smtp-peer';
import { parseMessage } from '@monitor/notifiers/testing/mime';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { setUpAdminSession } from './support/session';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';

jest.setTimeout(120_000);

describe('E-mail channel and JSON checks in the dashboard (built server, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let smtp: SmtpPeer;
  let health: Server;
  let healthUrl = '';
  let problems: string[];

  async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const cookie = (await browser.context.cookies(server.url)).map((c) => `${c.name}=${c.value}`).join('; ');
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        cookie,
        origin: server.url,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  }

  beforeAll(async () => {
    server = await startServer();
    smtp = await startSmtpPeer({ security: 'none' });
    health = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok', queue: 3 }));
    });
    await new Promise<void>((resolve) => health.listen(0, '127.0.0.1', resolve));
    healthUrl = `http://127.0.0.1:${(health.address() as AddressInfo).port}/health`;
    browser = await openBrowser({
      viewport: { width: 360, height: 740 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    problems = collectProblems(browser.page);
    await setUpAdminSession(server.url, browser.context);
  });

  afterAll(async () => {
    await browser?.close();
    await smtp?.close();
    await new Promise<void>((resolve) => (health ? health.close(() => resolve()) : resolve()));
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  it('creates an email channel on a 360 px screen and sends a test mail to both recipients', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/channels`);
    await page.getByRole('heading', { level: 1, name: 'Channels' }).waitFor();
    await page.getByRole('button', { name: 'New channel' }).click();
    const form = page.getByTestId('channel-form');
    await form.getByLabel('Name', { exact: true }).fill('Ops mail');
    await form.getByLabel('Type').selectOption('email');
    await expect(form.getByLabel('Security').locator('option').allTextContents()).resolves.toEqual([
      expect.any(String),
      'none',
      'starttls',
      'tls',
    ]);
    await form.getByLabel('SMTP server').fill('127.0.0.1');
    await form.getByLabel('Port', { exact: true }).fill(String(smtp.port));
    await form.getByLabel('Security').selectOption('none');
    await form.getByLabel(/^From\b/).fill('monitor@example.com');
    await form.getByLabel(/^To\b/).fill('ops@example.com, oncall@example.org');
    await expect(form.getByLabel('Password').getAttribute('type')).resolves.toBe('password');
    expect(await page.locator('.recipe ol li').count()).toBe(6);
    await expect(page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBe(360);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'channel-email-360.png'), fullPage: true });

    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('channel-Ops mail').waitFor();
    expect(await page.getByTestId('channel-Ops mail').textContent()).toContain('E-mail (SMTP)');
    await form.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test message sent').waitFor();
    const [mail] = await smtp.waitFor(1);
    expect(mail?.rcpt_tos).toEqual(['ops@example.com', 'oncall@example.org']);
    expect(parseMessage(mail?.data ?? '').parts).toHaveLength(2);

    // A bad recipient is refused with the server's words.
    await form.getByLabel(/^To\b/).fill('ops@example.com, nobody');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('config.to has an invalid address "nobody"').waitFor();
    expect(problems.filter((line) => !/status of 400/.test(line))).toEqual([]);
  });

  it('saves an http sensor with a JSON check, and shows a bad expression refused by the server', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/sensors/new`);
    await page.getByRole('heading', { level: 1, name: 'New sensor' }).waitFor();
    await page.getByLabel('Type', { exact: true }).selectOption('http');
    await page.getByLabel('Name', { exact: true }).fill('Health JSON');
    await page.locator('#sensor-target').fill(healthUrl);
    await page.getByLabel('JSON path').fill('$.queue');
    await page.getByLabel('JSON comparison').selectOption('<');
    await page.getByLabel('Expected JSON value').fill('10');
    await page.getByRole('button', { name: 'Validate and probe once' }).click();
    const probe = page.getByTestId('probe-result');
    await probe.waitFor();
    expect(await probe.textContent()).toContain('Probe succeeded');

    await page.getByLabel('JSON path').fill('$.queue[');
    const { status, body } = await api<{ error: string }>('POST', '/api/sensors/validate', {
      name: 'Health JSON',
      type: 'http',
      target: healthUrl,
      options: { json_path: '$.queue[', json_operator: '<', json_expected: '10' },
    });
    expect(status).toBe(400);
    expect(body.error).toBe(
      "options.json_path is not a valid JSONPath expression: unclosed bracketed selection ('$.queue[':8)",
    );
    await page.getByRole('button', { name: 'Create sensor' }).click();
    const failure = page.getByTestId('sensor-form-error');
    await failure.waitFor();
    expect((await failure.textContent())?.trim()).toBe(body.error);

    await page.getByLabel('JSON path').fill('$.queue');
    await page.getByRole('button', { name: 'Create sensor' }).click();
    await page.waitForURL(/\/\?highlight=\d+$/);
    const id = Number(new URL(page.url()).searchParams.get('highlight'));
    await waitFor(async () => (await api<unknown>('GET', `/api/sensors/${id}`)).status === 200);
    const { body: sensor } = await api<{ options: Record<string, unknown> }>('GET', `/api/sensors/${id}`);
    expect(sensor.options).toEqual({ json_path: '$.queue', json_operator: '<', json_expected: '10' });

    await page.goto(`${server.url}/sensors/${id}/edit`);
    await expect(page.getByLabel('JSON path').inputValue()).resolves.toBe('$.queue');
    await expect(page.getByLabel('JSON comparison').inputValue()).resolves.toBe('<');
    expect(problems.filter((line) => !/status of 400/.test(line))).toEqual([]);
  });
});
