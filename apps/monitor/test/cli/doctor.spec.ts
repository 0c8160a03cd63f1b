import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readStoredRows } from '../api/support/concurrency';
import { runCli, startServer, tempDir } from '../support/server-process';
import { itOnSqlite, testBackend } from '../support/test-database';
import { requireBuiltExecutable, Resources, snapshotDir } from './cli-support';

jest.setTimeout(60_000);

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

interface Report {
  ok: boolean;
  checks: Check[];
}

const onSqlite = testBackend() === 'sqlite';

// PostgreSQL adds the tables' sizes; its database lives outside the data directory.
const CHECK_NAMES = onSqlite
  ? ['configuration', 'data_directory', 'database', 'migrations', 'cluster', 'disk']
  : ['configuration', 'data_directory', 'database', 'migrations', 'tables', 'cluster', 'disk'];
// serve's lock file (issue 16) stays after a stop; the doctor neither takes nor changes it.
const DATABASE_FILES = onSqlite ? ['monitor.db', 'monitor.lock'] : [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (bounded) until no session of `application` is connected to the data directory's database. */
async function untilDisconnected(dataDir: string, application: string): Promise<void> {
  const connected = async () =>
    (
      await readStoredRows<{ n: number }>(
        dataDir,
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${application}'`,
      )
    )[0].n;
  for (let tries = 0; tries < 100 && (await connected()) > 0; tries++) await sleep(50);
  expect(await connected()).toBe(0);
}

/**
 * On PostgreSQL, what doctor could change: every table's rows (digested) and the rows ever inserted,
 * updated or deleted per table, from the statistics the server keeps (the digests alone would miss
 * a write undone by another).
 */
async function databaseState(dataDir: string): Promise<Record<string, unknown>> {
  const tables = await readStoredRows<{ name: string }>(
    dataDir,
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
  );
  const state: Record<string, unknown> = {};
  for (const { name } of tables) {
    const rows = await readStoredRows(dataDir, `SELECT * FROM "${name}" ORDER BY 1`);
    state[name] = createHash('sha256').update(JSON.stringify(rows)).digest('hex');
  }
  state.written = await readStoredRows(
    dataDir,
    `SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables ORDER BY relname`,
  );
  return state;
}

function parseReport(stdout: string): Report {
  const lines = stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]) as Report;
}

const check = (report: Report, name: string): Check => {
  const found = report.checks.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no ${name} check in ${JSON.stringify(report)}`);
  return found;
};

describe('monitor doctor', () => {
  const resources = new Resources();
  /** A data directory the server created, used once and stopped cleanly; tests must not change it. */
  let installation: string;

  beforeAll(async () => {
    requireBuiltExecutable();
    installation = tempDir('monitor-doctor-');
    const server = await startServer({ dataDir: installation });
    // Use it once before stopping. (This also keeps SIGTERM clear of the moment right after the
    // `listening` line, before serve installs its signal handlers; see the report.)
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(await server.stop()).toBe(0);
    if (onSqlite) expect(fs.existsSync(path.join(installation, 'monitor.db'))).toBe(true);
    else expect(await readStoredRows(installation, 'SELECT name FROM migrations')).not.toHaveLength(0);
  });

  afterEach(() => resources.release());
  afterAll(() => fs.rmSync(installation, { recursive: true, force: true }));

  /** A copy of the stopped installation that a test may change. */
  const copyOfInstallation = (): string => {
    const dir = resources.dir('monitor-doctor-copy-');
    fs.copyFileSync(path.join(installation, 'monitor.db'), path.join(dir, 'monitor.db'));
    return dir;
  };

  describe('on a data directory the server created and stopped', () => {
    it('exits 0 and every check in the text report is ok', async () => {
      const result = await runCli(['doctor', '--data-dir', installation]);

      expect(result.stdout).not.toContain('PROBLEM');
      expect(result.stdout.trimEnd().split('\n').pop()).toBe('healthy');
      expect(result.code).toBe(0);
      if (!onSqlite) {
        expect(result.stdout).toMatch(/^ok {6}database: postgres:\/\/.*: PostgreSQL \d+.*schema intact/m);
        expect(result.stdout).toMatch(/^ok {6}tables: .* in all: /m);
      }
    });

    it('--json reports ok with the configuration, data_directory, database, migrations and disk checks', async () => {
      const result = await runCli(['doctor', '--json', '--data-dir', installation]);
      const report = parseReport(result.stdout);

      expect(report.checks.map((c) => c.name)).toEqual(CHECK_NAMES);
      expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      expect(report.ok).toBe(true);
      expect(result.code).toBe(0);
    });

    it('writes nothing: files, sizes, mtimes, contents and the directory itself are unchanged', async () => {
      const before = snapshotDir(installation);
      expect(before.files.map((f) => f.name)).toEqual(DATABASE_FILES);
      if (!onSqlite) await untilDisconnected(installation, 'monitor');
      const stateBefore = onSqlite ? null : await databaseState(installation);

      const text = await runCli(['doctor', '--data-dir', installation]);
      const json = await runCli(['doctor', '--json', '--data-dir', installation]);

      expect(text.stdout).toContain('database');
      expect(parseReport(json.stdout).checks).toHaveLength(CHECK_NAMES.length);
      const after = snapshotDir(installation);
      expect(after.files.map((f) => f.name)).not.toContain('monitor.db-wal');
      expect(after.files.map((f) => f.name)).not.toContain('monitor.db-shm');
      expect(after).toEqual(before);
      if (!onSqlite) {
        // Its sessions' statistics are in once they are gone.
        await untilDisconnected(installation, 'monitor doctor');
        expect(await databaseState(installation)).toEqual(stateBefore);
      }
    });
  });

  it('exits 1 on an empty directory, says the database does not exist and leaves it empty', async () => {
    const dir = resources.dir();
    const before = snapshotDir(dir);

    const result = await runCli(['doctor', '--json', '--data-dir', dir]);
    const report = parseReport(result.stdout);

    expect(result.code).toBe(1);
    expect(report.ok).toBe(false);
    expect(check(report, 'database')).toMatchObject({ ok: false });
    if (onSqlite) {
      expect(check(report, 'database').detail).toContain(path.join(dir, 'monitor.db'));
      expect(check(report, 'database').detail).toContain('does not exist');
    } else {
      // The empty directory's database: a new one, still without tables.
      expect(check(report, 'database').detail).toContain('empty (the service creates the schema');
      expect(
        await readStoredRows(dir, `SELECT 1 FROM information_schema.tables WHERE table_schema = 'public'`),
      ).toEqual([]);
    }
    expect(check(report, 'migrations')).toMatchObject({ ok: false });
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(snapshotDir(dir)).toEqual(before);
  });

  it('exits 1 on a missing data directory and does not create it', async () => {
    const parent = resources.dir();
    const missing = path.join(parent, 'nothing-here');

    const result = await runCli(['doctor', '--json', '--data-dir', missing]);
    const report = parseReport(result.stdout);

    expect(result.code).toBe(1);
    expect(check(report, 'data_directory')).toMatchObject({ ok: false });
    expect(check(report, 'data_directory').detail).toContain('does not exist');
    expect(fs.existsSync(missing)).toBe(false);
    expect(fs.readdirSync(parent)).toEqual([]);
  });

  describe('with an invalid configuration', () => {
    it('exits 1 and the configuration check names MONITOR_LOG_LEVEL=loud as log_level', async () => {
      const result = await runCli(['doctor', '--json', '--data-dir', installation], {
        env: { MONITOR_LOG_LEVEL: 'loud' },
      });
      const report = parseReport(result.stdout);

      expect(result.code).toBe(1);
      expect(check(report, 'configuration')).toMatchObject({ ok: false });
      expect(check(report, 'configuration').detail).toContain('log_level');
      expect(check(report, 'data_directory')).toMatchObject({ ok: true });
    });

    it('exits 1 and the configuration check names an unknown key of the YAML file', async () => {
      const dir = resources.dir();
      const file = path.join(dir, 'monitor.yml');
      fs.writeFileSync(file, 'colour: red\n');

      const result = await runCli(['doctor', '--data-dir', installation, '--config', file]);

      expect(result.code).toBe(1);
      const line = result.stdout.split('\n').find((l) => /\bconfiguration:/.test(l));
      expect(line).toMatch(/^PROBLEM configuration: .*colour/);
    });
  });

  itOnSqlite('overwrites pages of the .db file')(
    'exits 1 on a database whose pages were overwritten with garbage',
    async () => {
      const dir = copyOfInstallation();
      const file = path.join(dir, 'monitor.db');
      expect(fs.statSync(file).size).toBeGreaterThan(8192);
      const fd = fs.openSync(file, 'r+');
      try {
        fs.writeSync(fd, randomBytes(4096), 0, 4096, 4096);
      } finally {
        fs.closeSync(fd);
      }

      const result = await runCli(['doctor', '--json', '--data-dir', dir]);
      const report = parseReport(result.stdout);

      expect(result.code).toBe(1);
      expect(report.ok).toBe(false);
      expect(check(report, 'database')).toMatchObject({ ok: false });
      // The detail must describe the corruption, not a failure to open an intact file.
      expect(check(report, 'database').detail).toMatch(/malformed|quick_check|not a database|corrupt/i);
    },
  );

  it('exits 0 while a server is running against the same directory', async () => {
    const server = resources.server(await startServer({ dataDir: resources.dir() }));

    const result = await runCli(['doctor', '--json', '--data-dir', server.dataDir]);
    const report = parseReport(result.stdout);

    expect(report.checks.map((c) => c.name)).toEqual(CHECK_NAMES);
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(result.code).toBe(0);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });
});
