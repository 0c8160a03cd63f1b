import * as http from 'node:http';
import * as path from 'node:path';
import { Client } from 'pg';
import { ATOMIC_WRITE_LOCK } from '../../src/core/database/unit-of-work';
import { healthWhileWriteLocked, largeDocument, SENSORS } from '../support/large-backup';
import { parseLogLines, RunningServer, startServer } from '../support/server-process';
import { databaseUrlFor, testBackend } from '../support/test-database';
import { requireBuiltExecutable } from './cli-support';

/**
 * The built server (dist/apps/monitor/main.js, its restore worker beside it on SQLite) keeps
 * answering while a large document is restored and while a large backup streams out. The test
 * process is apart from the server, so what it sees is what any client sees.
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

/**
 * While `settled()` is false, watches for the restore's write in progress and asks `/healthz` each
 * time it sees it: on SQLite the file's write lock held (the worker's transaction), on PostgreSQL
 * the advisory lock the restore's transaction takes first, seen granted in pg_locks.
 */
async function healthWhileRestoreWrites(
  dataDir: string,
  settled: () => boolean,
  healthStatus: () => Promise<number>,
): Promise<{ writing: number; answeredWhileWriting: number }> {
  if (testBackend() === 'sqlite')
    return healthWhileWriteLocked(path.join(dataDir, 'monitor.db'), settled, healthStatus);
  const watcher = new Client({ connectionString: databaseUrlFor(dataDir) });
  await watcher.connect();
  let writing = 0;
  let answeredWhileWriting = 0;
  try {
    while (!settled()) {
      // A bigint key below 2^32 is classid 0, objid the key, objsubid 1.
      const held = await watcher.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
           AND classid = 0 AND objid = $1 AND objsubid = 1`,
        [ATOMIC_WRITE_LOCK],
      );
      if (held.rowCount === 0) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        continue;
      }
      writing++;
      if ((await healthStatus()) === 200 && !settled()) answeredWhileWriting++;
    }
  } finally {
    await watcher.end();
  }
  return { writing, answeredWhileWriting };
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

  it('answers /healthz while the restore writes its rows (a worker thread on SQLite, one transaction on PostgreSQL)', async () => {
    let settled = false;
    const restoring = fetch(`${server.url}/api/restore`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: doc.text,
    }).finally(() => (settled = true));
    const { writing, answeredWhileWriting } = await healthWhileRestoreWrites(
      server.dataDir,
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
    const backupLines = () => parseLogLines(server.output()).filter((l) => l.msg === 'backup');
    const earlier = backupLines().length;
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
    // The server logs once the stream has finished, which the client may see first.
    const backupLine = async () => {
      for (let tries = 0; tries < 100; tries++) {
        const line = backupLines()[earlier];
        if (line) return line;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return undefined;
    };
    expect(await backupLine()).toMatchObject({
      counts: { sensors: SENSORS, rollup_hourly: doc.buckets },
      bytes,
    });
  });
});
