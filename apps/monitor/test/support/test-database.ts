import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { Client } from 'pg';
import { ADMIN_URL_ENV } from './pg-global-setup';
import { findPostgresBinDir } from './postgres-cluster';
import { quoteIdentifier, sanitiseDatabaseName, testDatabaseName, withDatabase } from './postgres-names';

export type TestBackend = 'sqlite' | 'postgres';

/**
 * The backend this jest project runs the app on: 'postgres' in the *-pg projects. Decide by this,
 * never by MONITOR_TEST_PG_ADMIN_URL: a run that includes a *-pg project sets that for every project.
 */
export const testBackend = (): TestBackend =>
  process.env.MONITOR_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

let created = 0;
// Tells a re-run of the same file in the same cluster (watch mode) from the earlier one.
const runSuffix = randomBytes(3).toString('hex');

/**
 * A new, empty database on the run's PostgreSQL cluster, named after the calling test file and a
 * counter, as a postgres:// URL. Only in the *-pg projects, whose globalSetup starts the cluster.
 */
export async function testDatabaseUrl(): Promise<string> {
  const adminUrl = process.env[ADMIN_URL_ENV];
  if (!adminUrl) {
    throw new Error(
      `${ADMIN_URL_ENV} is not set: PostgreSQL test databases exist only in the api-pg and cli-pg jest projects`,
    );
  }
  const testPath = expect.getState().testPath ?? 'unknown';
  const name = testDatabaseName(testPath, ++created, runSuffix);
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
  } finally {
    await client.end();
  }
  return withDatabase(adminUrl, name);
}

const byDataDir = new Map<string, string>();

/**
 * The PostgreSQL database standing in for a data directory's SQLite file: created on first use and
 * the same for every later process or app on that directory (restarts see their data). Synchronous
 * (psql), so spawners can call it while building a child's environment.
 */
export function databaseUrlFor(dataDir: string): string {
  const known = byDataDir.get(dataDir);
  if (known) return known;
  const adminUrl = process.env[ADMIN_URL_ENV];
  if (!adminUrl)
    throw new Error(`${ADMIN_URL_ENV} is not set: the PostgreSQL backend needs the *-pg projects`);
  const name = sanitiseDatabaseName(`dir_${path.basename(dataDir)}_${runSuffix}_${++created}`);
  execFileSync(
    path.join(findPostgresBinDir(), 'psql'),
    [adminUrl, '-q', '-c', `CREATE DATABASE ${quoteIdentifier(name)}`],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const url = withDatabase(adminUrl, name);
  byDataDir.set(dataDir, url);
  return url;
}

/**
 * What a monitor process started with `args` needs in its environment to run on the test backend:
 * on PostgreSQL, MONITOR_DATABASE_URL of the database standing in for its --data-dir.
 */
export function backendEnv(args: readonly string[]): Record<string, string> {
  if (testBackend() !== 'postgres') return {};
  const at = args.indexOf('--data-dir');
  if (at === -1 || at + 1 >= args.length) return {};
  return { MONITOR_DATABASE_URL: databaseUrlFor(path.resolve(args[at + 1])) };
}

/**
 * `it` for a test of something only SQLite has (its file, its lock, a trigger): on PostgreSQL it is
 * skipped with the reason in its title, which the test run lists.
 */
export function itOnSqlite(why: string) {
  return (title: string, fn: jest.ProvidesCallback, timeout?: number): void =>
    testBackend() === 'sqlite'
      ? it(title, fn, timeout)
      : it.skip(`${title} (SQLite only: ${why})`, fn, timeout);
}

/**
 * `it` for a test of something only PostgreSQL allows (several instances on one database): on
 * SQLite it is skipped with the reason in its title, which the test run lists.
 */
export function itOnPostgres(why: string) {
  return (title: string, fn: jest.ProvidesCallback, timeout?: number): void =>
    testBackend() === 'postgres'
      ? it(title, fn, timeout)
      : it.skip(`${title} (PostgreSQL only: ${why})`, fn, timeout);
}

/** `describe` whose tests run only on PostgreSQL; on SQLite each is skipped with the reason. */
export function describeOnPostgres(why: string) {
  return (title: string, fn: () => void): void =>
    testBackend() === 'postgres'
      ? describe(title, fn)
      : describe.skip(`${title} (PostgreSQL only: ${why})`, fn);
}
