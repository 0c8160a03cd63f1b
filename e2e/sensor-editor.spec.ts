import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createSocket } from 'node:dgram';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Sensor } from '@monitor/contracts';
import {
  SENSOR_DEFAULTS,
  SENSOR_GROUP,
  SENSOR_INTERVAL,
  SENSOR_NAME,
  SENSOR_REMINDER_EVERY,
  SENSOR_RETRIES,
  SENSOR_TARGET,
} from '@monitor/domain/sensor.definition';
import { startDnsServer } from '@monitor/probes/testing/dns-server';
import type { Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { setUpAdminSession, signInAs, apiAs } from './support/session';
import { collectProblems, waitFor } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';

jest.setTimeout(120_000);

const OPERATOR = { username: 'oncall', password: 'operator password 1' } as const;
const KEYWORD = 'all-systems-nominal';
const SCREENSHOTS = SCREENSHOTS_DIR;
const COMMUNITY = 'c0mmunity-s3cret';

describe('Sensor editor (built server and dashboard, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let page: Page;
  let problems: string[];
  const closers: (() => Promise<void>)[] = [];
  let httpPort = 0;
  let tcpPort = 0;
  let closedPort = 0;
  let snmpPort = 0;
  const snmpPackets: Buffer[] = [];

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

    const http = createHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(`status: ${KEYWORD}`);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    httpPort = (http.address() as AddressInfo).port;
    closers.push(() => new Promise<void>((resolve) => http.close(() => resolve())));

    const tcp = createTcpServer((socket) => socket.end());
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    tcpPort = (tcp.address() as AddressInfo).port;
    closers.push(() => new Promise<void>((resolve) => tcp.close(() => resolve())));

    const spare = createTcpServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    closedPort = (spare.address() as AddressInfo).port;
    await new Promise<void>((resolve) => spare.close(() => resolve()));

    // Records SNMP requests (the v2c community travels in clear text) and never answers.
    const udp = createSocket('udp4');
    udp.on('message', (packet) => snmpPackets.push(packet));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    snmpPort = udp.address().port;
    closers.push(() => new Promise<void>((resolve) => udp.close(() => resolve())));
  });

  afterAll(async () => {
    await browser?.close();
    for (const close of closers) await close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  async function openNew(type: string): Promise<void> {
    await page.goto(url('/sensors/new'));
    await page.getByRole('heading', { level: 1, name: 'New sensor' }).waitFor();
    await page.getByLabel('Type', { exact: true }).selectOption(type);
  }

  async function fillCommon(name: string, target: string): Promise<void> {
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.locator('#sensor-target').fill(target);
  }

  /** Creates the sensor; the editor returns to the status page with it marked, then its page is opened. */
  async function saveAndLand(name: string): Promise<number> {
    await page.getByRole('button', { name: 'Create sensor' }).click();
    await page.waitForURL(/\/\?highlight=\d+$/);
    const id = Number(new URL(page.url()).searchParams.get('highlight'));
    await page.locator(`[data-testid="sensor-row-${id}"][data-highlighted="true"]`).waitFor();
    await page.goto(url(`/sensors/${id}`));
    await page.getByTestId('sensor-name').filter({ hasText: name }).waitFor();
    return id;
  }

  async function probeOk(): Promise<void> {
    await page.getByRole('button', { name: 'Validate and probe once' }).click();
    const probe = page.getByTestId('probe-result');
    await probe.waitFor();
    expect(await probe.textContent()).toContain('Probe succeeded');
  }

  async function validateOk(): Promise<void> {
    await page.getByRole('button', { name: 'Validate', exact: true }).click();
    await page.getByTestId('sensor-check').getByText('The server accepts this sensor.').waitFor();
  }

  it('creates an http sensor with a keyword, probes it once, and saves it', async () => {
    await openNew('http');
    await expect(page.getByLabel('Interval (seconds)').inputValue()).resolves.toBe('60');
    await expect(page.getByLabel('Retries').inputValue()).resolves.toBe('3');
    await fillCommon('Local web', `http://127.0.0.1:${httpPort}/health`);
    await page.getByLabel('Keyword', { exact: true }).fill(KEYWORD);
    await page.getByLabel('Tags').fill('prod, web');
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 1 name').fill('X-Check');
    await page.getByLabel('Header 1 value').fill('yes');

    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Validate and probe once' }).click();
    const probe = page.getByTestId('probe-result');
    await probe.waitFor();
    expect(await probe.textContent()).toContain('Probe succeeded');
    expect(await probe.textContent()).toContain('status 200');
    await page.screenshot({ path: join(SCREENSHOTS, 'sensor-editor.png'), fullPage: true });

    const id = await saveAndLand('Local web');
    const { body: sensor } = await api<Sensor>('GET', `/api/sensors/${id}`);
    expect(sensor).toMatchObject({
      type: 'http',
      target: `http://127.0.0.1:${httpPort}/health`,
      interval: 60,
      retries: 3,
      tags: ['prod', 'web'],
      options: { keyword: KEYWORD, headers: { 'X-Check': '__stored__' } },
    });
    expect(sensor.options).not.toHaveProperty('follow_redirects');

    // The sensor page offers Edit and New sensor to administrators.
    await page.getByTestId('edit-sensor').click();
    await page.waitForURL(url(`/sensors/${id}/edit`));
    await page.getByRole('heading', { level: 1, name: 'Edit Local web' }).waitFor();
    await expect(page.getByLabel('Keyword', { exact: true }).inputValue()).resolves.toBe(KEYWORD);
    await expect(page.getByLabel('Type', { exact: true }).isDisabled()).resolves.toBe(true);
  });

  it('creates a tcp sensor against a local port, and deletes it after confirmation', async () => {
    await openNew('tcp');
    await fillCommon('Local port', `127.0.0.1:${tcpPort}`);
    await page.getByLabel('Time-out (seconds)').fill('5');
    await page.getByRole('button', { name: 'Validate and probe once' }).click();
    await page.getByTestId('probe-result').filter({ hasText: 'Probe succeeded' }).waitFor();
    const id = await saveAndLand('Local port');
    const { body: sensor } = await api<Sensor>('GET', `/api/sensors/${id}`);
    expect(sensor.options).toEqual({ timeout: 5 });

    await page.goto(url(`/sensors/${id}/edit`));
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Delete Local port' }).click();
    await page.waitForURL(url('/'));
    await expect(api('GET', `/api/sensors/${id}`).then((r) => r.status)).resolves.toBe(404);
  });

  it('creates dns and docker sensors whose probe once succeeds against local fakes', async () => {
    const dns = await startDnsServer({
      records: [{ name: 'app.test', type: 'A', ttl: 60, data: '127.0.0.1' }],
    });
    closers.push(() => dns.close());
    // A stand-in for the Docker engine on a unix socket: one running container.
    const dir = await mkdtemp(join(tmpdir(), 'e2e-docker-'));
    const socket = join(dir, 'docker.sock');
    const engine = createHttpServer((request, response) => {
      const running = /\/containers\/web-1\/json$/.test(request.url ?? '');
      response.writeHead(running ? 200 : 404, { 'content-type': 'application/json' });
      response.end(
        running
          ? JSON.stringify({ Name: '/web-1', RestartCount: 0, State: { Status: 'running', Running: true } })
          : '{"message":"No such container"}',
      );
    });
    await new Promise<void>((resolve) => engine.listen(socket, resolve));
    closers.push(async () => {
      await new Promise<void>((resolve) => engine.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    });

    await openNew('dns');
    await fillCommon('App record', 'app.test');
    await page.getByLabel('DNS server').fill(dns.address);
    await probeOk();
    const dnsId = await saveAndLand('App record');
    expect(dns.queries.some((query) => query.name === 'app.test' && query.type === 'A')).toBe(true);

    await openNew('docker');
    await fillCommon('Web container', 'web-1');
    await page.getByLabel('Docker socket').fill(socket);
    await probeOk();
    const dockerId = await saveAndLand('Web container');

    expect((await api<Sensor>('GET', `/api/sensors/${dnsId}`)).body).toMatchObject({
      type: 'dns',
      target: 'app.test',
    });
    expect((await api<Sensor>('GET', `/api/sensors/${dockerId}`)).body).toMatchObject({
      type: 'docker',
      target: 'web-1',
      options: { socket },
    });
    expect(problems).toEqual([]);
  });

  it('keeps a stored SNMP community when the sensor is saved without retyping it', async () => {
    await openNew('snmp');
    await fillCommon('Switch', '127.0.0.1');
    await page.getByLabel('Community').fill(COMMUNITY);
    await page.getByLabel('OID').fill('1.3.6.1.2.1.1.3.0');
    await page.getByLabel('Port', { exact: true }).fill(String(snmpPort));
    await page.getByLabel('Time-out (seconds)').fill('1');
    await validateOk();
    const id = await saveAndLand('Switch');
    expect((await api<Sensor>('GET', `/api/sensors/${id}`)).body.options).toMatchObject({
      community: '__stored__',
      port: snmpPort,
    });

    await page.goto(url(`/sensors/${id}/edit`));
    const community = page.getByLabel('Community');
    await expect(community.inputValue()).resolves.toBe('');
    await expect(community.getAttribute('placeholder')).resolves.toBe('stored — retype to change');
    await page.getByLabel('Name', { exact: true }).fill('Core switch');
    const put = page.waitForRequest((request) => request.method() === 'PUT');
    await page.getByRole('button', { name: 'Save' }).click();
    const sent = (await put).postDataJSON() as { options: Record<string, unknown> };
    expect(sent.options['community']).toBe('__stored__');
    await page.getByTestId('sensor-name').filter({ hasText: 'Core switch' }).waitFor();
    expect((await api<Sensor>('GET', `/api/sensors/${id}`)).body.options['community']).toBe('__stored__');

    // The stored value itself is unchanged: a probe now sends the original community.
    snmpPackets.splice(0);
    expect((await api('POST', `/api/sensors/${id}/probe`)).status).toBe(200);
    await waitFor(() => snmpPackets.length > 0);
    expect(snmpPackets[0]?.includes(Buffer.from(COMMUNITY))).toBe(true);
  });

  it('validates dns, docker and ping sensors, and shows a refused target verbatim', async () => {
    await openNew('dns');
    await fillCommon('Resolver', 'example.com');
    await page.getByLabel('DNS server').fill(`127.0.0.1:${closedPort}`);
    await page.getByLabel('Record type').selectOption('AAAA');
    await page.getByLabel('Transport').selectOption('tcp');
    await validateOk();

    await openNew('docker');
    await fillCommon('Container', 'web-1');
    await page.getByLabel('Docker socket').fill('/var/run/docker.sock');
    await validateOk();

    await openNew('ping');
    await fillCommon('Gateway', '127.0.0.1');
    await page.getByLabel('Packets').fill('2');
    await validateOk();
    await saveAndLand('Gateway');

    await openNew('http');
    await fillCommon('Broken', 'not a url');
    const { status, body } = await api<{ error: string }>('POST', '/api/sensors/validate', {
      name: 'Broken',
      type: 'http',
      target: 'not a url',
    });
    expect(status).toBe(400);
    await page.getByRole('button', { name: 'Validate', exact: true }).click();
    const refused = page.getByTestId('sensor-check-error');
    await refused.waitFor();
    expect(await refused.textContent()).toContain(body.error);
    await page.getByRole('button', { name: 'Create sensor' }).click();
    const failure = page.getByTestId('sensor-form-error');
    await failure.waitFor();
    expect((await failure.textContent())?.trim()).toBe(body.error);
    expect(await failure.getAttribute('role')).toBe('alert');

    await page.setViewportSize({ width: 360, height: 740 });
    try {
      await expect(page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBe(360);
      await page.screenshot({ path: join(SCREENSHOTS, 'sensor-editor-360.png'), fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(await seriousAxeViolations(page)).toEqual([]);
    const unexpected = problems.filter((line) => !/status of 400/.test(line));
    expect(unexpected).toEqual([]);
  });

  it('takes bounds, lengths and defaults from the sensor definition the server checks', async () => {
    await openNew('http');
    for (const [selector, rule] of [
      ['#sensor-interval', SENSOR_INTERVAL],
      ['#sensor-retries', SENSOR_RETRIES],
      ['#sensor-reminder', SENSOR_REMINDER_EVERY],
    ] as const) {
      const field = page.locator(selector);
      await expect(field.getAttribute('min')).resolves.toBe(String(rule.min));
      await expect(field.getAttribute('max')).resolves.toBe(String(rule.max));
      await expect(field.inputValue()).resolves.toBe(String(rule.fallback));
      const hint = await page
        .locator(`#${(await field.getAttribute('aria-describedby')) ?? ''}`)
        .textContent();
      expect(hint).toContain(String(rule.max));
    }
    expect(SENSOR_DEFAULTS.interval).toBe(SENSOR_INTERVAL.fallback);
    for (const [selector, length] of [
      ['#sensor-name', SENSOR_NAME.maxLength],
      ['#sensor-target', SENSOR_TARGET.maxLength],
      ['#sensor-group', SENSOR_GROUP.maxLength],
    ] as const) {
      await expect(page.locator(selector).getAttribute('maxlength')).resolves.toBe(String(length));
    }

    // One past the bound the form allows is refused by the server with the definition's sentence.
    await fillCommon('Too slow', `http://127.0.0.1:${httpPort}/health`);
    await page.locator('#sensor-interval').fill(String(SENSOR_INTERVAL.max + 1));
    await page.getByRole('button', { name: 'Validate', exact: true }).click();
    const refused = page.getByTestId('sensor-check-error');
    await refused.waitFor();
    expect(await refused.textContent()).toContain(
      `interval must be an integer from ${SENSOR_INTERVAL.min} to ${SENSOR_INTERVAL.max}`,
    );
    const unexpected = problems.filter((line) => !/status of 400/.test(line));
    expect(unexpected).toEqual([]);
  });

  it('sends an operator away from the editor', async () => {
    const created = await api('POST', '/api/users', { ...OPERATOR, role: 'operator' });
    expect(created.status).toBe(201);
    await signInAs(server.url, browser.context, OPERATOR);

    await page.goto(url('/sensors/new'));
    await page.waitForURL(url('/'));
    const sensors = (await api<Sensor[]>('GET', '/api/sensors')).body;
    const id = sensors[0]!.id;
    await page.goto(url(`/sensors/${id}/edit`));
    await page.waitForURL(url(`/sensors/${id}`));
    await page.getByTestId('sensor-name').waitFor();
    expect(await page.getByTestId('edit-sensor').count()).toBe(0);
    expect(await page.getByTestId('new-sensor').count()).toBe(0);
  });
});

describe('Sensor editor for a sensor declared in the configuration file', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let configDir: string;

  beforeAll(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'monitor-e2e-config-'));
    const configFile = join(configDir, 'monitor.yaml');
    await writeFile(
      configFile,
      `sensors:\n  - name: Declared port\n    type: tcp\n    target: '127.0.0.1:9'\n    enabled: false\n`,
    );
    server = await startServer({ args: ['--config', configFile] });
    browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    await setUpAdminSession(server.url, browser.context);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
    if (configDir) await rm(configDir, { recursive: true, force: true });
  });

  it('shows the file note and offers neither Edit, Save nor Delete', async () => {
    const { page } = browser;
    const cookie = (await browser.context.cookies(server.url)).map((c) => `${c.name}=${c.value}`).join('; ');
    const sensors = (await (
      await fetch(`${server.url}/api/sensors`, { headers: { cookie } })
    ).json()) as Sensor[];
    const id = sensors.find((sensor) => sensor.name === 'Declared port')!.id;

    await page.goto(`${server.url}/sensors/${id}`);
    await page.getByTestId('sensor-name').waitFor();
    expect(await page.getByTestId('edit-sensor').count()).toBe(0);
    expect(await page.getByTestId('new-sensor').count()).toBe(1);

    await page.goto(`${server.url}/sensors/${id}/edit`);
    await page.getByTestId('from-config').waitFor();
    expect(await page.getByTestId('from-config').textContent()).toContain('From configuration file');
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await expect(page.getByLabel('Name', { exact: true }).isDisabled()).resolves.toBe(true);
  });
});
