import { Writable } from 'node:stream';

import type { MonitorConfig } from '../../src/core/config/monitor-config';
import { ClusterSession } from '../../src/core/database/cluster-session';
import { createLogger } from '../../src/core/logging/logger';
import { describeOnPostgres, testDatabaseUrl } from '../support/test-database';
import { queryOnce } from '../support/postgres-cluster';

jest.setTimeout(60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The cluster sessions open on the database (a restarted server ends them all the same way). */
const sessions = async (url: string): Promise<number> =>
  (
    await queryOnce<{ n: number }>(
      url,
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'monitor cluster'",
    )
  )[0].n;
const endSessions = (url: string) =>
  queryOnce(
    url,
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'monitor cluster'",
  );

describeOnPostgres('the cluster session is PostgreSQL’s')(
  'the cluster session after a lost connection',
  () => {
    it('keeps one session: a connection lost again while the reconnection hooks run starts no second one', async () => {
      const url = await testDatabaseUrl();
      const lines: { msg: string }[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split('\n'))
            if (line) lines.push(JSON.parse(line) as { msg: string });
          done();
        },
      });
      const session = new ClusterSession({ database_url: url } as MonitorConfig, createLogger('info', sink));
      await session.connect();
      let hooks = 0;
      // The server goes away again while the first reconnection re-takes its locks (a second
      // restart right after the first): the hook fails with it.
      session.onReconnect(async () => {
        hooks += 1;
        if (hooks > 1) return;
        await endSessions(url);
        await sleep(300);
        throw new Error('the connection went away meanwhile');
      });
      try {
        await endSessions(url);
        const until = Date.now() + 20_000;
        while (!(hooks >= 2 && session.isConnected) && Date.now() < until) await sleep(100);
        expect(hooks).toBeGreaterThanOrEqual(2);
        // Time for a second reconnection loop, if there were one, to connect too.
        await sleep(3000);
        expect(await sessions(url)).toBe(1);
        expect(lines.filter((l) => l.msg === 'cluster connection to the database restored')).toHaveLength(1);
      } finally {
        await session.close();
      }
      expect(await sessions(url)).toBe(0);
    });
  },
);
