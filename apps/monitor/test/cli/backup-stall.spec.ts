import * as http from 'node:http';
import * as path from 'node:path';
import { healthWhileWriteLocked, largeDocument, SENSORS } from '../support/large-backup';
import { parseLogLines, RunningServer, startServer } from '../support/server-process';
import { requireBuiltExecutable } from './cli-support';

/**
 * The built server (dist/apps/monitor/main.js, its restore worker beside it) keeps answering
 * while a large document is restored and while a large backup streams out. The test process is
 * apart from the server, so what it sees is what any client sees.
 */

jest.setTimeout(120_000);

const PASSWORD = 'backup stall test password';

async function apiKey(server: RunningServer): Promise<Record<string, string>> {
  const login = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const cookie = login.headers.getSetCookie()[0].split(';')[0];
  const { api_key } = (await (
    await fetch(`${server.url}/api/api-key`, { method: 'POST', headers: { cookie } })
  ).json()) as { api_key: string };
  return { 'x-api-key': api_key };
}

/** GET with a fresh connection; answers the status once the whole answer is in. */
function get(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

describe('the built server during a large restore and backup', () => {
  let server: RunningServer;
  let headers: Record<string, string>;
  const doc = largeDocument();

  beforeAll(async () => {
    requireBuiltExecutable();
    server = await startServer({ env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
    headers = await apiKey(server);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('writes the restore in its worker thread and answers /healthz while the rows go in', async () => {
    let settled = false;
    const restoring = fetch(`${server.url}/api/restore`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: doc.text,
    }).finally(() => (settled = true));
    const { writing, answeredWhileWriting } = await healthWhileWriteLocked(
      path.join(server.dataDir, 'monitor.db'),
      () => settled,
      () => get(`${server.url}/healthz`),
    );
    const res = await restoring;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { counts: unknown }).counts).toEqual({
      sensors: SENSORS,
      rollup_hourly: doc.buckets,
    });
    expect(writing).toBeGreaterThan(0);
    expect(answeredWhileWriting).toBeGreaterThan(0);
  });

  it('streams the backup with turns of the event loop: /healthz is answered while it downloads', async () => {
    let downloaded = false;
    let bytes = 0;
    let healthz: Promise<{ status: number; downloadedFirst: boolean }> | undefined;
    await new Promise<void>((resolve, reject) => {
      http
        .get(`${server.url}/api/backup?scope=history&days=all`, { headers, agent: false }, (res) => {
          expect(res.statusCode).toBe(200);
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            // The first piece is out: the document is being written now.
            healthz ??= get(`${server.url}/healthz`).then((status) => ({
              status,
              downloadedFirst: downloaded,
            }));
          });
          res.on('end', () => {
            downloaded = true;
            resolve();
          });
          res.on('error', reject);
        })
        .on('error', reject);
    });
    expect(await healthz).toEqual({ status: 200, downloadedFirst: false });
    const logged = parseLogLines(server.output()).filter((line) => line.msg === 'backup');
    expect(logged.at(-1)).toMatchObject({ counts: { sensors: SENSORS, rollup_hourly: doc.buckets }, bytes });
  });
});
