import * as fs from 'node:fs';
import * as path from 'node:path';
import { type RunningServer } from '../support/server-process';
import { testBackend } from '../support/test-database';
import { isRoot, NOBODY, requireBuiltExecutable, Resources, startServerAs } from './cli-support';

jest.setTimeout(90_000);

const onSqlite = testBackend() === 'sqlite';
const PASSWORD = 'file modes password';
const itAsRoot = isRoot() ? it : it.skip;

const modeOf = (file: string): number => fs.statSync(file).mode & 0o777;

/** The process is started with umask 000: as root through UMASK, otherwise inherited from us. */
async function startPermissive(options: Parameters<typeof startServerAs>[0]): Promise<RunningServer> {
  const previous = process.umask(0o000);
  try {
    return await startServerAs({
      ...options,
      env: { UMASK: '000', MONITOR_ADMIN_PASSWORD: PASSWORD, ...options.env },
    });
  } finally {
    process.umask(previous);
  }
}

async function restoreOnce(server: RunningServer): Promise<string> {
  const login = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const cookie = login.headers.getSetCookie()[0].split(';')[0];
  const backup = await fetch(`${server.url}/api/backup`, { headers: { cookie } });
  expect(backup.status).toBe(200);
  const restored = await fetch(`${server.url}/api/restore`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: await backup.text(),
  });
  const body = (await restored.json()) as { safety_copy: string };
  expect(restored.status).toBe(200);
  return body.safety_copy;
}

/** The files of the data directory that hold secrets, with their modes. */
function privateModes(dataDir: string): Record<string, number> {
  const modes: Record<string, number> = {};
  for (const name of fs.readdirSync(dataDir))
    if (name.startsWith('monitor.db') || name.startsWith('monitor-before-restore-'))
      modes[name] = modeOf(path.join(dataDir, name));
  return modes;
}

const allPrivate = (modes: Record<string, number>) =>
  Object.fromEntries(Object.keys(modes).map((name) => [name, 0o600]));

describe('file modes under a permissive umask', () => {
  const resources = new Resources();

  beforeAll(() => requireBuiltExecutable());
  afterEach(() => resources.release());

  it('creates the data directory 0700 and the database, its WAL and shared memory and the safety copy 0600', async () => {
    const dataDir = path.join(resources.dir(), 'nested', 'data');
    const server = resources.server(await startPermissive({ dataDir }));
    expect(modeOf(dataDir)).toBe(0o700);
    const copy = await restoreOnce(server);
    const modes = privateModes(dataDir);
    expect(Object.keys(modes)).toContain(copy);
    if (onSqlite)
      expect(Object.keys(modes)).toEqual(
        expect.arrayContaining(['monitor.db', 'monitor.db-wal', 'monitor.db-shm']),
      );
    expect(modes).toEqual(allPrivate(modes));
    // No restore spool is left behind.
    expect(fs.readdirSync(dataDir).filter((name) => name.includes('restore-upload'))).toEqual([]);
  });

  it('tightens the files an earlier start left readable to others, and leaves other files alone', async () => {
    const dataDir = resources.dir();
    let server = resources.server(await startPermissive({ dataDir }));
    await restoreOnce(server);
    await server.stop('SIGKILL');
    for (const name of Object.keys(privateModes(dataDir))) fs.chmodSync(path.join(dataDir, name), 0o666);
    fs.writeFileSync(path.join(dataDir, 'notes.txt'), 'the operator’s own file');
    fs.chmodSync(path.join(dataDir, 'notes.txt'), 0o644);

    server = resources.server(await startPermissive({ dataDir }));
    const modes = privateModes(dataDir);
    expect(Object.keys(modes).length).toBeGreaterThanOrEqual(onSqlite ? 2 : 1);
    expect(modes).toEqual(allPrivate(modes));
    expect(modeOf(path.join(dataDir, 'notes.txt'))).toBe(0o644);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  itAsRoot(
    'after the identity drop the files belong to PUID:PGID and stay 0600 (needs root: changes uid)',
    async () => {
      const parent = resources.dir();
      fs.chmodSync(parent, 0o755);
      // A parent made on the way stays passable: PUID must reach the directory after the drop.
      const dataDir = path.join(parent, 'made', 'data');
      const server = resources.server(
        await startPermissive({ dataDir, env: { PUID: String(NOBODY), PGID: String(NOBODY) } }),
      );
      expect(modeOf(dataDir)).toBe(0o700);
      expect(fs.statSync(dataDir).uid).toBe(NOBODY);
      const copy = await restoreOnce(server);
      const modes = privateModes(dataDir);
      expect(Object.keys(modes)).toContain(copy);
      expect(modes).toEqual(allPrivate(modes));
      for (const name of Object.keys(modes))
        expect([name, fs.statSync(path.join(dataDir, name)).uid]).toEqual([name, NOBODY]);
    },
  );
});
