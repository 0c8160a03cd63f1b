import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseLogLines, runCli, startServer, tempDir } from '../support/server-process';
import { itOnSqlite } from '../support/test-database';
import { errorLines, isRoot, requireBuiltExecutable, strictLogLines } from './cli-support';
import { fillFileSystem as fill } from '../support/full-disk';

jest.setTimeout(120_000);

const freeOn = (dir: string): number => {
  const stats = fs.statfsSync(dir);
  return stats.bavail * stats.bsize;
};

describe('serve on a full disk', () => {
  let mountPoint: string;
  let mounted = false;

  beforeAll(() => {
    requireBuiltExecutable();
    mountPoint = tempDir('monitor-start-full-');
    if (!isRoot()) return;
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint]);
    mounted = true;
  });

  afterAll(() => {
    if (mounted) execFileSync('umount', ['-l', mountPoint]);
    fs.rmSync(mountPoint, { recursive: true, force: true });
  });

  const runOnSqlite = itOnSqlite('the database file is on the full disk');
  const it = isRoot() ? runOnSqlite : (title: string) => test.skip(`${title} (needs root: mounts a tmpfs)`);

  it('exits 1 with one line naming the database and the free bytes, for an existing and a new database', async () => {
    const existing = path.join(mountPoint, 'existing');
    const server = await startServer({
      dataDir: existing,
      env: { MONITOR_ADMIN_PASSWORD: 'disk full password' },
    });
    expect(await server.stop()).toBe(0);
    fill(path.join(mountPoint, 'filler'));

    for (const dataDir of [existing, path.join(mountPoint, 'new')]) {
      const refused = await runCli(['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir]);
      expect(refused.code).toBe(1);
      strictLogLines(refused.stdout);
      expect(parseLogLines(refused.stdout).some((line) => line.msg === 'listening')).toBe(false);
      const errors = errorLines(refused.stdout);
      expect(errors).toHaveLength(1);
      const file = path.join(dataDir, 'monitor.db');
      const said =
        /^no space left for database (.+): (\d+) bytes free on its file system; free some space/.exec(
          errors[0].msg,
        );
      expect(said?.[1]).toBe(file);
      // The figure is the file system's (a few hundred bytes at most are left by the filler).
      expect(Number(said?.[2])).toBe(freeOn(mountPoint));
    }
  });
});
