import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import Database from 'better-sqlite3';

import type { DataSource } from 'typeorm';
import { copyDatabase } from '../../src/core/database/copy-database';
import { TRIGRAMS_MISSING } from '../../src/core/database/database.module';
import { MIGRATION_NAMES } from '../../src/core/database/migrations';
import { TRIGRAM_INDEXES } from '../../src/core/database/migrations/1764000000003-api-filter-indexes';
import { openDatabase } from '../../src/core/database/open-database';
import { openPostgres } from '../../src/core/database/open-postgres';
import {
  isUniqueViolationError,
  likeFragment,
  resetIdentity,
  sqlClientFor,
} from '../../src/core/database/sql-client';
import { PgCluster, queryOnce, startPostgresCluster } from '../support/postgres-cluster';
import { parseLogLines, runCli, startServer, tempDir } from '../support/server-process';

jest.setTimeout(120_000);

let cluster: PgCluster;
const opened: DataSource[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
});
afterAll(async () => {
  for (const dataSource of opened) if (dataSource.isInitialized) await dataSource.destroy();
  await cluster.stop();
});

async function open(url: string): Promise<DataSource> {
  const dataSource = await openPostgres(url, []);
  opened.push(dataSource);
  return dataSource;
}

const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe('opening PostgreSQL', () => {
  it('creates the whole schema on an empty database and records the same migrations as SQLite', async () => {
    const url = await cluster.createDatabase();
    await open(url);
    const migrations = await queryOnce<{ name: string }>(url, 'SELECT name FROM migrations ORDER BY id');
    expect(migrations.map((m) => m.name)).toEqual(MIGRATION_NAMES);
    const tables = await queryOnce<{ table_name: string }>(
      url,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['sensors', 'probe_results', 'incidents', 'alert_outbox', 'users', 'settings']),
    );
  });

  it('migrates once when several processes start on one new database at the same moment', async () => {
    const url = await cluster.createDatabase();
    await Promise.all([open(url), open(url), open(url)]);
    const migrations = await queryOnce<{ name: string }>(url, 'SELECT name FROM migrations');
    expect(migrations).toHaveLength(MIGRATION_NAMES.length);
  });

  it("refuses a database holding another application's tables and leaves it untouched", async () => {
    const url = await cluster.createDatabase();
    await queryOnce(url, 'CREATE TABLE invoices (id integer PRIMARY KEY)');
    await expect(openPostgres(url, [])).rejects.toThrow(/holds tables of another application/);
    const tables = await queryOnce(
      url,
      `SELECT 1 FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    expect(tables).toHaveLength(1);
  });

  it("serve refuses another application's database with one line and exit 1, doctor exits 1; nothing is changed", async () => {
    const url = await cluster.createDatabase();
    await queryOnce(
      url,
      `CREATE TABLE invoices (id integer PRIMARY KEY, total numeric); INSERT INTO invoices VALUES (1, 9.5)`,
    );
    const contents = () =>
      queryOnce(
        url,
        `SELECT (SELECT string_agg(table_name, ',') FROM information_schema.tables WHERE table_schema = 'public') AS tables,
                (SELECT json_agg(i ORDER BY id)::text FROM invoices i) AS invoices`,
      );
    const before = await contents();

    const serve = await runCli([
      'serve',
      '--listen',
      '127.0.0.1:0',
      '--data-dir',
      tempDir(),
      '--database-url',
      url,
    ]);
    expect(serve.code).toBe(1);
    const errors = parseLogLines(serve.stdout).filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].msg).toMatch(/^database \w+ holds tables of another application/);
    const doctor = await runCli(['doctor', '--data-dir', tempDir(), '--database-url', url]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(
      /^PROBLEM database: postgres:\/\/.* is not a monitor database \(no migrations table; tables invoices\)$/m,
    );
    expect(doctor.stdout).toMatch(
      /^PROBLEM migrations: not inspected: the database belongs to another application$/m,
    );
    expect(await contents()).toEqual(before);
  });

  it('refuses a schema newer than this build, naming both versions', async () => {
    const url = await cluster.createDatabase();
    await (await open(url)).query(`INSERT INTO migrations (timestamp, name) VALUES (1, 'FromTheFuture1')`);
    await expect(openPostgres(url, [])).rejects.toThrow(
      `has schema version ${MIGRATION_NAMES.length + 1}, newer than this build's ${MIGRATION_NAMES.length}`,
    );
  });

  it('names the host but never the password when the server cannot be reached', async () => {
    const port = await closedPort();
    const started = await runCli(['serve', '--listen', '127.0.0.1:0', '--data-dir', tempDir()], {
      env: { MONITOR_DATABASE_URL: `postgres://monitor:Sekr3tPw@127.0.0.1:${port}/monitor` },
    });
    expect(started.code).not.toBe(0);
    const output = started.stdout + started.stderr;
    expect(output).toContain(`cannot connect to database at 127.0.0.1:${port}: connection refused`);
    expect(output).not.toContain('Sekr3tPw');
    const errors = parseLogLines(output).filter((line) => line.level === 'error');
    expect(errors.map((line) => line.msg)).toEqual([
      `cannot connect to database at 127.0.0.1:${port}: connection refused`,
    ]);
  });
});

describe('the test cluster', () => {
  it('pauses (clients see the server gone) and resumes on the same port with its data', async () => {
    const url = await cluster.createDatabase();
    await queryOnce(url, 'CREATE TABLE kept (n integer)');
    await queryOnce(url, 'INSERT INTO kept VALUES (7)');
    await cluster.pause();
    await expect(queryOnce(url, 'SELECT 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await cluster.resume();
    expect(await queryOnce(url, 'SELECT n FROM kept')).toEqual([{ n: 7 }]);
  });
});

describe('SqlClient on PostgreSQL', () => {
  let dataSource: DataSource;
  beforeAll(async () => {
    dataSource = await open(await cluster.createDatabase());
    await dataSource.query(
      'CREATE TABLE t (id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name text UNIQUE, on_ boolean NOT NULL)',
    );
  });

  it('runs the same statements as on SQLite: placeholders, booleans, RETURNING, changes', async () => {
    const db = sqlClientFor(dataSource);
    expect(db.dialect).toBe('postgres');
    expect(await db.all('INSERT INTO t (name, on_) VALUES (?, ?) RETURNING id', ['a', true])).toEqual([
      { id: 1 },
    ]);
    await db.run('INSERT INTO t (name, on_) VALUES (?, ?)', ['b', false]);
    expect(await db.get('SELECT name, on_ FROM t WHERE on_ = ?', [false])).toEqual({ name: 'b', on_: false });
    expect(await db.get<{ n: number }>('SELECT count(*) AS n FROM t')).toEqual({ n: 2 });
    expect(await db.run('UPDATE t SET on_ = ?', [true])).toEqual({ changes: 2 });
  });

  it('rolls a failed transaction back whole and reports the unique violation', async () => {
    const db = sqlClientFor(dataSource);
    const error: unknown = await db
      .transaction(async (tx) => {
        await tx.run('INSERT INTO t (name, on_) VALUES (?, ?)', ['c', true]);
        await tx.run('INSERT INTO t (name, on_) VALUES (?, ?)', ['a', true]);
      })
      .catch((e: unknown) => e);
    expect(isUniqueViolationError(error)).toBe(true);
    expect(await db.get('SELECT name FROM t WHERE name = ?', ['c'])).toBeUndefined();
  });

  it('folds ASCII letters only in LIKE, as SQLite does', async () => {
    const db = sqlClientFor(dataSource);
    await db.run('INSERT INTO t (name, on_) VALUES (?, ?)', ['Backup Ä', true]);
    const sql = `SELECT name FROM t WHERE ${likeFragment('postgres', 'name')}`;
    expect(await db.all(sql, ['%BACKUP%'])).toEqual([{ name: 'Backup Ä' }]);
    expect(await db.all(sql, ['%ä%'])).toEqual([]);
  });

  it('moves the id sequence past explicitly inserted ids', async () => {
    const db = sqlClientFor(dataSource);
    await db.run('INSERT INTO t (id, name, on_) VALUES (?, ?, ?)', [50, 'explicit', true]);
    await resetIdentity(db, 't');
    expect(await db.get('INSERT INTO t (name, on_) VALUES (?, ?) RETURNING id', ['next', true])).toEqual({
      id: 51,
    });
  });
});

/** Every table's rows of a SQLite file, in key order, for comparing two files. */
function sqliteContents(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND name <> 'migrations' ORDER BY name`,
      )
      .pluck()
      .all() as string[];
    return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}" ORDER BY 1, 2`).all()]));
  } finally {
    db.close();
  }
}

describe('moving an installation', () => {
  it('copies SQLite into PostgreSQL and back with every row intact, including a sensor whose parent comes later', async () => {
    const dir = tempDir();
    const from = await openDatabase(dir, []);
    opened.push(from);
    const db = sqlClientFor(from);
    const now = Date.UTC(2026, 10, 1);
    await db.run(
      `INSERT INTO sensors (id, name, type, target, parent_id, enabled, created_at, updated_at, latency_ms) VALUES
       (1, 'child', 'http', 'http://127.0.0.1/', NULL, ?, ?, ?, 12.625), (2, 'parent', 'tcp', '127.0.0.1:1', NULL, ?, ?, ?, NULL)`,
      [false, now, now, true, now, now],
    );
    await db.run('UPDATE sensors SET parent_id = 2 WHERE id = 1');
    await db.run(
      'INSERT INTO probe_results (sensor_id, ts, success, latency_ms, message) VALUES (1, ?, ?, 3.5, ?), (1, ?, ?, NULL, ?)',
      [now, true, 'ok', now + 1, false, 'refused'],
    );
    // The prober of a result (issue 16) moves with it; an older row has the column's default.
    await db.run(`UPDATE probe_results SET instance = 'east-1' WHERE ts = ?`, [now + 1]);
    await db.run(
      `INSERT INTO users (username, password_hash, role, created_at, updated_at) VALUES ('Admin', 'h', 'admin', ?, ?)`,
      [now, now],
    );

    const pgUrl = await cluster.createDatabase();
    const pg = await open(pgUrl);
    const report = await copyDatabase(db, sqlClientFor(pg));
    expect(report.tables.find((t) => t.name === 'sensors')?.rows).toBe(2);
    const sensors = await queryOnce(
      pgUrl,
      'SELECT id, parent_id, enabled, latency_ms FROM sensors ORDER BY id',
    );
    expect(sensors).toEqual([
      { id: 1, parent_id: 2, enabled: false, latency_ms: 12.625 },
      { id: 2, parent_id: null, enabled: true, latency_ms: null },
    ]);
    expect(await queryOnce(pgUrl, 'SELECT instance FROM probe_results ORDER BY ts')).toEqual([
      { instance: '' },
      { instance: 'east-1' },
    ]);
    // User names stay case-insensitive on PostgreSQL.
    expect(await queryOnce(pgUrl, `SELECT id FROM users WHERE username = 'admin'`)).toHaveLength(1);

    await expect(copyDatabase(db, sqlClientFor(pg))).rejects.toThrow('the target is not empty');

    const backDir = tempDir();
    const back = await openDatabase(backDir, []);
    opened.push(back);
    await copyDatabase(sqlClientFor(pg), sqlClientFor(back));
    await from.destroy();
    await back.destroy();
    expect(sqliteContents(path.join(backDir, 'monitor.db'))).toEqual(
      sqliteContents(path.join(dir, 'monitor.db')),
    );
  });

  it('monitor migrate-storage --to and --from move the sample installation and refuse a non-empty target', async () => {
    const dir = tempDir();
    const seeded = await runCli(['seed', '--demo', '--data-dir', dir], { timeoutMs: 60_000 });
    expect(seeded.code).toBe(0);
    const url = await cluster.createDatabase();

    const to = await runCli(['migrate-storage', '--data-dir', dir, '--to', url], { timeoutMs: 60_000 });
    expect(to.stderr).toBe('');
    expect(to.code).toBe(0);
    expect(to.stdout).toMatch(/copied \d+ rows in \d+ tables; the row counts match/);
    expect(to.stdout).toContain('set database_url:');
    const [{ n }] = await queryOnce<{ n: number }>(url, 'SELECT count(*)::int AS n FROM probe_results');
    expect(n).toBeGreaterThan(1000);

    const again = await runCli(['migrate-storage', '--data-dir', dir, '--to', url], { timeoutMs: 60_000 });
    expect(again.code).toBe(1);
    expect(again.stdout + again.stderr).toMatch(
      /the target is not empty: table \w+ holds rows; nothing was copied/,
    );

    const backDir = tempDir();
    const from = await runCli(['migrate-storage', '--data-dir', backDir, '--from', url], {
      timeoutMs: 60_000,
    });
    expect(from.code).toBe(0);
    expect(from.stdout).toContain('remove database_url');
    expect(fs.existsSync(path.join(backDir, 'monitor.db'))).toBe(true);
    expect(sqliteContents(path.join(backDir, 'monitor.db'))).toEqual(
      sqliteContents(path.join(dir, 'monitor.db')),
    );
  });
});

describe('doctor on PostgreSQL', () => {
  const withPassword = (url: string) =>
    url.replace('postgres://monitor_test@', 'postgres://monitor_test:Sekr3tPw@');

  it('reports the server version, an intact schema, the migrations and the table sizes, password masked', async () => {
    const url = withPassword(await cluster.createDatabase());
    await open(url);
    const report = await runCli(['doctor', '--data-dir', tempDir(), '--database-url', url]);
    expect(report.stdout).not.toContain('Sekr3tPw');
    expect(report.stdout).toMatch(
      /^ok {6}database: postgres:\/\/monitor_test:\*\*\*@127\.0\.0\.1:\d+\/\w+: PostgreSQL \d+/m,
    );
    expect(report.stdout).toMatch(/schema intact \(\d+ tables, \d+ indexes valid\)/);
    expect(report.stdout).toContain(`ok      migrations: ${MIGRATION_NAMES.length} applied, none pending`);
    expect(report.stdout).toMatch(/^ok {6}tables: .* in all: .*probe_results/m);
    expect(report.code).toBe(0);
  });

  it('finds a missing index and exits 1', async () => {
    const url = await cluster.createDatabase();
    await (await open(url)).query('DROP INDEX "IDX_incidents_open"');
    const report = await runCli(['doctor', '--data-dir', tempDir(), '--database-url', url]);
    expect(report.stdout).toMatch(/^PROBLEM database: .*missing indexes: IDX_incidents_open/m);
    expect(report.code).toBe(1);
  });

  it('expects the trigram indexes where pg_trgm is installed, and finds one missing', async () => {
    const url = await cluster.createDatabase();
    await open(url);
    expect(await queryOnce(url, `SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)).toHaveLength(1);
    await queryOnce(url, 'DROP INDEX "IDX_incidents_cause_trgm"');
    const report = await runCli(['doctor', '--data-dir', tempDir(), '--database-url', url]);
    expect(report.stdout).toMatch(/^PROBLEM database: .*missing indexes: IDX_incidents_cause_trgm/m);
    expect(report.code).toBe(1);
  });

  it('migrates for a role that may not install pg_trgm; the doctor passes; a later start builds the indexes', async () => {
    const url = await cluster.createDatabase();
    const role = `no_extensions_${process.pid}`;
    await queryOnce(url, `CREATE ROLE ${role} LOGIN`);
    // Tables, yes (the public schema); CREATE on the database, which a trusted extension needs, no.
    await queryOnce(url, `GRANT CREATE ON SCHEMA public TO ${role}`);
    const limited = url.replace('monitor_test@', `${role}@`);
    await (await open(limited)).destroy();
    expect(await queryOnce(url, `SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)).toEqual([]);
    expect(await queryOnce(url, `SELECT indexname FROM pg_indexes WHERE indexname LIKE '%trgm'`)).toEqual([]);
    const without = await runCli(['doctor', '--data-dir', tempDir(), '--database-url', limited]);
    expect(without.stdout).toMatch(/^ok {6}database: .*text search without trigram indexes/m);
    expect(without.code).toBe(0);
    const server = await startServer({ env: { MONITOR_DATABASE_URL: limited } });
    expect(await server.stop()).toBe(0);
    const warnings = parseLogLines(server.output()).filter((line) => line.level === 'warn');
    expect(warnings.map((line) => line.msg)).toContain(TRIGRAMS_MISSING);

    await queryOnce(url, 'CREATE EXTENSION pg_trgm');
    await open(limited);
    const built = await queryOnce<{ indexname: string }>(
      url,
      `SELECT indexname FROM pg_indexes WHERE indexname LIKE '%trgm' ORDER BY indexname`,
    );
    expect(built.map((r) => r.indexname)).toEqual(TRIGRAM_INDEXES.map((i) => i.name).sort());
    const withIndexes = await runCli(['doctor', '--data-dir', tempDir(), '--database-url', limited]);
    expect(withIndexes.stdout).toMatch(/^ok {6}database: .*schema intact/m);
    expect(withIndexes.stdout).not.toContain('without trigram indexes');
    expect(withIndexes.code).toBe(0);
  });

  it('writes nothing to an empty database and says the service creates the schema', async () => {
    const url = await cluster.createDatabase();
    const report = await runCli(['doctor', '--data-dir', tempDir(), '--database-url', url]);
    expect(report.stdout).toMatch(
      /^PROBLEM database: .*empty \(the service creates the schema on first start\)/m,
    );
    expect(report.stdout).toMatch(/^PROBLEM migrations: none applied/m);
    expect(report.code).toBe(1);
    expect(
      await queryOnce(url, `SELECT 1 FROM information_schema.tables WHERE table_schema = 'public'`),
    ).toEqual([]);
  });

  it('names the unreachable host without the password', async () => {
    const port = await closedPort();
    const url = `postgres://monitor:Sekr3tPw@127.0.0.1:${port}/monitor`;
    const report = await runCli(['doctor', '--data-dir', tempDir(), '--database-url', url]);
    expect(report.stdout).toContain(
      `PROBLEM database: cannot connect to 127.0.0.1:${port}: connection refused`,
    );
    expect(report.stdout + report.stderr).not.toContain('Sekr3tPw');
    expect(report.code).toBe(1);
  });
});
