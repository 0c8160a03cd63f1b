import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StartupError } from '../process/startup-error';
import { alreadyRunningText, LOCK_FILE, lockDataDirectory } from './data-directory-lock';

// SQLite keeps the locks of connections in one process apart itself, so two holders can meet here;
// the CLI suite checks the same between processes and after kill -9.
describe('lockDataDirectory', () => {
  let dir: string;
  const releases: (() => void)[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-lock-'));
  });
  afterEach(() => {
    for (const release of releases.splice(0)) release();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const hold = (pid: number, startedAt: number) => {
    const lock = lockDataDirectory(dir, { pid, startedAt });
    releases.push(() => lock.release());
    return lock;
  };

  const refusal = (pid: number): unknown => {
    try {
      hold(pid, Date.now());
    } catch (error) {
      return error;
    }
    return 'taken';
  };

  it('refuses a second holder with one line naming the directory, the holder and PostgreSQL', () => {
    const since = Date.UTC(2026, 10, 25, 7, 0, 0);
    hold(4242, since);

    const error = refusal(5151);

    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toBe(
      `another monitor is already running on data directory ${dir} (pid 4242, since 2026-11-25T07:00:00.000Z): SQLite allows one process; use PostgreSQL (database_url) to run several instances`,
    );
    expect((error as Error).message).not.toContain('\n');
  });

  it('is free again once released, and the next holder is the one named', () => {
    hold(1, 1000).release();
    hold(2, 2000);
    expect((refusal(3) as Error).message).toContain('(pid 2, since 1970-01-01T00:00:02.000Z)');
  });

  it('leaves only its own file in the directory, never beside it a journal', () => {
    hold(1, 1000);
    refusal(2);
    expect(fs.readdirSync(dir)).toEqual([LOCK_FILE]);
  });

  it('stops with one line naming the file when it is not a lock file', () => {
    fs.writeFileSync(path.join(dir, LOCK_FILE), 'not a database, just text that is long enough '.repeat(20));
    const error = refusal(1) as Error;
    expect(error).toBeInstanceOf(StartupError);
    expect(error.message).toMatch(
      new RegExp(`^cannot lock data directory .*${LOCK_FILE}.*: file is not a database$`),
    );
  });

  it('says the holder is starting when it has not written its row yet', () => {
    expect(alreadyRunningText('/x', null)).toBe(
      'another monitor is already running on data directory /x (it is starting): SQLite allows one process; use PostgreSQL (database_url) to run several instances',
    );
  });
});
