import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, startServer, tempDir } from '../support/server-process';
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

const CHECK_NAMES = ['configuration', 'data_directory', 'database', 'migrations', 'disk'];

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
    expect(fs.existsSync(path.join(installation, 'monitor.db'))).toBe(true);
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
      expect(before.files.map((f) => f.name)).toEqual(['monitor.db']);

      const text = await runCli(['doctor', '--data-dir', installation]);
      const json = await runCli(['doctor', '--json', '--data-dir', installation]);

      expect(text.stdout).toContain('database');
      expect(parseReport(json.stdout).checks).toHaveLength(CHECK_NAMES.length);
      const after = snapshotDir(installation);
      expect(after.files.map((f) => f.name)).not.toContain('monitor.db-wal');
      expect(after.files.map((f) => f.name)).not.toContain('monitor.db-shm');
      expect(after).toEqual(before);
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
    expect(check(report, 'database').detail).toContain(path.join(dir, 'monitor.db'));
    expect(check(report, 'database').detail).toContain('does not exist');
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

  it('exits 1 on a database whose pages were overwritten with garbage', async () => {
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
  });

  it('exits 0 while a server is running against the same directory', async () => {
    const server = resources.server(await startServer({ dataDir: resources.dir() }));

    const result = await runCli(['doctor', '--json', '--data-dir', server.dataDir]);
    const report = parseReport(result.stdout);

    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(result.code).toBe(0);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });
});
