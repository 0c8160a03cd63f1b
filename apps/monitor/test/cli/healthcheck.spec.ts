import * as http from 'node:http';
import * as net from 'node:net';
import { runCli, startServer } from '../support/server-process';
import { requireBuiltExecutable, Resources } from './cli-support';

jest.setTimeout(60_000);

const listenOnFreePort = (server: net.Server): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
  });

const close = (server: net.Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

describe('monitor healthcheck', () => {
  const resources = new Resources();

  beforeAll(() => requireBuiltExecutable());
  afterEach(() => resources.release());

  describe('against a live server', () => {
    it('exits 0 and prints healthy for --url <url>/healthz', async () => {
      const server = resources.server(await startServer({ dataDir: resources.dir() }));

      const result = await runCli(['healthcheck', '--url', `${server.url}/healthz`]);

      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^healthy: /);
      expect(result.stdout).toContain(`${server.url}/healthz`);
    });

    it('exits 0 with --listen 127.0.0.1:<port> and no --url', async () => {
      const server = resources.server(await startServer({ dataDir: resources.dir() }));

      const result = await runCli(['healthcheck', '--listen', `127.0.0.1:${server.port}`]);

      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^healthy: /);
      expect(result.stdout).toContain(`http://127.0.0.1:${server.port}/healthz`);
    });
  });

  it('exits 1 and says unreachable for a port nobody listens on', async () => {
    const probe = net.createServer();
    const port = await listenOnFreePort(probe);
    await close(probe);

    const result = await runCli(['healthcheck', '--url', `http://127.0.0.1:${port}/healthz`]);

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^unhealthy: /);
    expect(result.stdout).toContain('unreachable');
  });

  it('exits 1 when the server answers 500', async () => {
    const failing = http.createServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok', version: '9.9.9' }));
    });
    const port = await listenOnFreePort(failing);
    try {
      const result = await runCli(['healthcheck', '--url', `http://127.0.0.1:${port}/healthz`]);

      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^unhealthy: /);
      expect(result.stdout).toContain('500');
    } finally {
      failing.closeAllConnections();
      await close(failing);
    }
  });
});
