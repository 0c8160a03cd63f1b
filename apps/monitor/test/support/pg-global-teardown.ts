import { ADMIN_URL_ENV, CLUSTER_KEY } from './pg-global-setup';
import type { PgCluster } from './postgres-cluster';

/** Jest globalTeardown of the *-pg projects: stops the cluster pg-global-setup.ts started. */
export default async function pgGlobalTeardown(): Promise<void> {
  const holder = globalThis as typeof globalThis & { [CLUSTER_KEY]?: PgCluster };
  const cluster = holder[CLUSTER_KEY];
  if (!cluster) return;
  delete holder[CLUSTER_KEY];
  delete process.env[ADMIN_URL_ENV];
  await cluster.stop();
}
