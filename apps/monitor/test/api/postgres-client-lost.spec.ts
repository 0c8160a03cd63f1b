import type { DataSource } from 'typeorm';
import { ENTITIES } from '../../src/app.entities';
import { openPostgres } from '../../src/core/database/open-postgres';
import { sqlClientFor } from '../../src/core/database/sql-client';
import { describeOnPostgres, testDatabaseUrl } from '../support/test-database';
import { queryOnce } from '../support/postgres-cluster';

jest.setTimeout(60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeOnPostgres('the pool is PostgreSQL’s')('a pooled connection lost while checked out', () => {
  let dataSource: DataSource | undefined;
  afterEach(async () => {
    await dataSource?.destroy().catch(() => undefined);
  });

  // A server restart ends every connection; one held by a transaction between two statements used to
  // emit an `error` nobody listened to, which ends the process (an instance exited in the restart test).
  it('fails the transaction instead of the process, and the pool goes on with a new connection', async () => {
    const url = await testDatabaseUrl();
    dataSource = await openPostgres(url, ENTITIES);
    const client = sqlClientFor(dataSource);
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', record);
    try {
      const lost = client.transaction(async (tx) => {
        const row = await tx.get<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await queryOnce(url, 'SELECT pg_terminate_backend($1)', [row!.pid]);
        // Between two statements: the connection's end arrives as an event, not as a failed query.
        await sleep(500);
        await tx.get('SELECT 1 AS one');
      });
      await expect(lost).rejects.toThrow();
      expect(uncaught).toEqual([]);
      expect(await client.get<{ one: number }>('SELECT 1 AS one')).toEqual({ one: 1 });
    } finally {
      process.off('uncaughtException', record);
    }
  });
});
