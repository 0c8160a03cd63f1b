import type { SitesResponse } from '@monitor/contracts';
import { Client } from 'pg';
import { ATOMIC_WRITE_LOCK } from '../../src/core/database/unit-of-work';
import { call, setupAdmin } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';
import { databaseUrlFor, testBackend } from '../support/test-database';

const WRITERS = 15;

/** Resolves once `count` sessions wait for the write lock (an ungranted advisory lock). */
async function waitersOf(side: Client, count: number): Promise<void> {
  for (;;) {
    const { rows } = await side.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
    );
    if (Number(rows[0].n) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

(testBackend() === 'postgres' ? describe : describe.skip)(
  'writers waiting for the write lock (PostgreSQL only: its pool and advisory lock)',
  () => {
    let t: TestApp;
    let side: Client;

    beforeEach(async () => {
      t = await startTestApp({ startScheduler: false });
      side = new Client({ connectionString: databaseUrlFor(t.dataDir) });
      await side.connect();
    });

    afterEach(async () => {
      await side.end();
      await t.close();
    });

    // More writers than the pool has connections wait while another holds the lock (a restore, another
    // instance): they must wait without taking every connection, so reads still answer meanwhile.
    it('queue in the process and leave the pool to readers; all are written once the lock is free', async () => {
      const admin = await setupAdmin(t);
      await side.query('SELECT pg_advisory_lock($1)', [ATOMIC_WRITE_LOCK]);
      let answered = 0;
      const writes = Array.from({ length: WRITERS }, (_, i) =>
        call(t, 'POST', '/api/sites', { name: `Waiting site ${i}` }, admin).then((res) => {
          answered++;
          return res.status;
        }),
      );
      await waitersOf(side, 1);
      const read = call<unknown[]>(t, 'GET', '/api/sensors', undefined, admin);
      const outcome = await Promise.race([
        read.then((res) => res.status),
        new Promise((resolve) => setTimeout(() => resolve('no answer while the lock was held'), 15_000)),
      ]);
      expect(outcome).toBe(200);
      expect(answered).toBe(0);
      await side.query('SELECT pg_advisory_unlock($1)', [ATOMIC_WRITE_LOCK]);
      expect(await Promise.all(writes)).toEqual(Array(WRITERS).fill(201));
      const sites = await call<SitesResponse>(t, 'GET', '/api/sites', undefined, admin);
      expect(sites.body.sites.filter((s) => s.name.startsWith('Waiting site'))).toHaveLength(WRITERS);
    }, 60_000);
  },
);
