import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { APPLICATION_ID } from '../../src/core/database/database-identity';
import { runCli, startServer } from '../support/server-process';
import { errorLines, requireBuiltExecutable, Resources, strictLogLines } from './cli-support';

jest.setTimeout(60_000);

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** A valid SQLite file of some other application, with a few rows. */
function foreignDatabase(dir: string, journal: 'delete' | 'wal'): string {
  const file = path.join(dir, 'monitor.db');
  const db = new Database(file);
  db.pragma(`journal_mode = ${journal}`);
  db.exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
           CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT);
           INSERT INTO notes (body) VALUES ('shopping list'), ('dentist at 3');
           INSERT INTO users (email) VALUES ('someone@example.com');`);
  db.close();
  return file;
}

const applicationId = (file: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return Number(db.pragma('application_id', { simple: true }));
  } finally {
    db.close();
  }
};

describe('a database of another application', () => {
  const resources = new Resources();

  beforeAll(() => requireBuiltExecutable());
  afterEach(() => resources.release());

  it.each(['delete', 'wal'] as const)(
    'is refused with one line naming it and left byte-identical (%s journal); doctor exits 1 naming it',
    async (journal) => {
      const dataDir = resources.dir('monitor-foreign-');
      const file = foreignDatabase(dataDir, journal);
      const before = sha256(file);

      const serve = await runCli(['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir]);
      expect(serve.code).toBe(1);
      strictLogLines(serve.stdout);
      const errors = errorLines(serve.stdout);
      expect(errors).toHaveLength(1);
      expect(errors[0].msg).toContain(`${file} is not a monitor database`);
      expect(errors[0].msg).toContain('tables notes, users');
      expect(sha256(file)).toBe(before);
      // Only serve's lock file (issue 16) is added beside it, taken before the database is looked at.
      expect(fs.readdirSync(dataDir).sort()).toEqual(['monitor.db', 'monitor.lock']);

      const doctor = await runCli(['doctor', '--data-dir', dataDir]);
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toMatch(new RegExp(`PROBLEM database: ${file}.* is not a monitor database`));
      expect(sha256(file)).toBe(before);
      expect(fs.readdirSync(dataDir).sort()).toEqual(['monitor.db', 'monitor.lock']);
    },
  );

  it('an existing database of ours from before the mark still starts, and gets marked', async () => {
    const dataDir = resources.dir('monitor-unmarked-');
    const file = path.join(dataDir, 'monitor.db');
    const first = resources.server(await startServer({ dataDir }));
    expect(await first.stop()).toBe(0);
    expect(applicationId(file)).toBe(APPLICATION_ID);
    const db = new Database(file);
    db.pragma('application_id = 0');
    db.close();

    const doctor = await runCli(['doctor', '--json', '--data-dir', dataDir]);
    const report = JSON.parse(doctor.stdout) as { checks: { name: string; ok: boolean; detail: string }[] };
    expect(report.checks.find((c) => c.name === 'database')).toMatchObject({ ok: true });
    expect(report.checks.find((c) => c.name === 'migrations')).toMatchObject({ ok: true });

    const second = resources.server(await startServer({ dataDir }));
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    expect(await second.stop()).toBe(0);
    expect(applicationId(file)).toBe(APPLICATION_ID);
  });

  it('an empty database file is taken as a new one', async () => {
    const dataDir = resources.dir('monitor-empty-');
    const file = path.join(dataDir, 'monitor.db');
    fs.writeFileSync(file, '');
    const server = resources.server(await startServer({ dataDir }));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await server.stop()).toBe(0);
    expect(applicationId(file)).toBe(APPLICATION_ID);
  });
});
