import { PgCluster, startPostgresCluster } from './postgres-cluster';

/** Where the workers find the cluster: the URL of its maintenance database (no password). */
export const ADMIN_URL_ENV = 'MONITOR_TEST_PG_ADMIN_URL';

/** Shared with pg-global-teardown.ts, which jest runs in this same process. */
export const CLUSTER_KEY = Symbol.for('monitor.test.pgCluster');

type WithCluster = typeof globalThis & { [CLUSTER_KEY]?: PgCluster };

/**
 * Jest globalSetup of the *-pg projects: one throw-away cluster per jest run. The api-pg and cli-pg
 * projects name this same module, and jest runs a module named by several projects once, and only
 * when a selected test belongs to one of them. A URL already in the environment (a server the
 * developer runs) is used as it is and no cluster is started.
 */
export default async function pgGlobalSetup(): Promise<void> {
  if (process.env[ADMIN_URL_ENV]) return;
  const cluster = await startPostgresCluster();
  (globalThis as WithCluster)[CLUSTER_KEY] = cluster;
  // Set before jest creates its workers, so they inherit it.
  process.env[ADMIN_URL_ENV] = cluster.adminUrl;
  // A run that ends without the teardown (an error, process.exit) still stops the server; the
  // cluster's own watchdog covers a jest that is killed outright.
  process.once('exit', () => cluster.stopSync());
}
