import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ADMIN_URL_ENV } from './pg-global-setup';
import { quoteIdentifier, testDatabaseName, withDatabase } from './postgres-names';

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
