import * as fs from 'node:fs';
import { Client } from 'pg';
import { databaseOf } from '../support/postgres-names';
import { testBackend, testDatabaseUrl } from '../support/test-database';

jest.setTimeout(60_000);

const currentDatabase = async (url: string): Promise<string> => {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>('select current_database() as name');
    return rows[0].name;
  } finally {
    await client.end();
  }
};

// Runs in cli (SQLite) and in cli-pg (PostgreSQL); each backend has its own expectations.
describe(`testDatabaseUrl on the ${testBackend()} backend`, () => {
  if (testBackend() === 'postgres') {
    it('creates a new empty database per call, named after this file and a counter', async () => {
      const first = await testDatabaseUrl();
      const second = await testDatabaseUrl();
      expect(databaseOf(first)).toMatch(/^cli_test_database_1_[0-9a-f]{6}$/);
      expect(databaseOf(second)).toMatch(/^cli_test_database_2_[0-9a-f]{6}$/);
      expect(await currentDatabase(first)).toBe(databaseOf(first));
      expect(await currentDatabase(second)).toBe(databaseOf(second));
      expect(new URL(first).hostname).toBe('127.0.0.1');
      expect(new URL(first).password).toBe('');
      // pg-jest-projects.spec.ts runs this file in a nested jest and checks what it leaves behind.
      const report = process.env.MONITOR_TEST_PG_REPORT;
      if (report) fs.writeFileSync(report, JSON.stringify({ databases: [first, second] }));
    });
  } else {
    it('refuses with a message naming the PostgreSQL projects when no cluster runs', async () => {
      // A run that includes a *-pg project sets the URL for every project (globalSetup runs in the
      // parent process); this file's process.env is its own copy, so removing it here is local.
      delete process.env.MONITOR_TEST_PG_ADMIN_URL;
      await expect(testDatabaseUrl()).rejects.toThrow('api-pg and cli-pg');
    });
  }
});
