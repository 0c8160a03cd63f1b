import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ClusterView, DoctorReport } from '@monitor/contracts';
import { requireBuiltExecutable } from './cli-support';
import { apiKey, call, TestCluster, until } from './cluster-support';
import { runCli, tempDir } from '../support/server-process';
import { testBackend } from '../support/test-database';

/**
 * `monitor doctor` names the instances sharing the database (issue 16): on PostgreSQL it reads
 * `cluster_instances` read-only and works out each live instance's sensors as the instances do; a
 * killed instance shows as dead and is a problem. SQLite is a single instance.
 */
jest.setTimeout(180_000);

const onPostgres = testBackend() === 'postgres';
const SENSORS = 24;

const clusterCheckOf = (report: DoctorReport) => {
  const found = report.checks.find((c) => c.name === 'cluster');
  if (!found) throw new Error(`no cluster check in ${JSON.stringify(report)}`);
  return found;
};

(onPostgres ? describe : describe.skip)(
  'monitor doctor on a cluster (PostgreSQL only: SQLite serves one process)',
  () => {
    let cluster: TestCluster;

    beforeAll(() => requireBuiltExecutable());
    afterAll(async () => {
      await cluster?.close();
    });

    /** The doctor as an operator on node-a's machine runs it: node-a's configuration and name. */
    const doctor = (json: boolean) =>
      runCli(
        [
          'doctor',
          '--data-dir',
          cluster.sharedDir,
          '--config',
          path.join(cluster.sharedDir, 'monitor.yaml'),
          ...(json ? ['--json'] : []),
        ],
        { env: { MONITOR_DATABASE_URL: cluster.databaseUrl, MONITOR_INSTANCE_NAME: 'node-a' } },
      );

    it('lists both live instances with the loads the instances compute, then the killed one as dead', async () => {
      cluster = new TestCluster('3s');
      const a = await cluster.start('node-a');
      await cluster.start('node-b');
      const key = await apiKey(a);
      for (let n = 0; n < SENSORS; n++)
        await call(a, key, 'POST', '/api/sensors', {
          name: `s${n}`,
          type: 'http',
          target: 'http://127.0.0.1:9/',
          interval: 3600,
        });
      await call(a, key, 'POST', '/api/sensors', {
        name: 'paused',
        type: 'http',
        target: 'http://127.0.0.1:9/',
        interval: 3600,
        enabled: false,
      });
      let view: ClusterView | undefined;
      expect(
        await until(async () => {
          view = await call<ClusterView>(a, key, 'GET', '/api/cluster');
          return (
            view.instances.length === 2 &&
            view.instances.every((i) => i.alive && i.sensors > 0) &&
            view.instances.reduce((sum, i) => sum + i.sensors, 0) === SENSORS
          );
        }, 20_000),
      ).toBe(true);
      const [loadA, loadB] = view!.instances.map((i) => i.sensors);

      const healthy = await doctor(true);
      const before = clusterCheckOf(JSON.parse(healthy.stdout) as DoctorReport);
      expect(before).toEqual({
        name: 'cluster',
        ok: true,
        detail: `cluster of 2 instances: node-a (this, ${loadA} sensors), node-b (${loadB})`,
      });
      expect(healthy.code).toBe(0);

      await cluster.stop('node-b', 'SIGKILL');
      // dead_after (3 s) passes: node-a sees node-b dead and takes its sensors over.
      expect(
        await until(async () => {
          view = await call<ClusterView>(a, key, 'GET', '/api/cluster');
          return (
            view.instances.find((i) => i.name === 'node-b')?.gone === 'dead' &&
            view.instances[0].sensors === SENSORS
          );
        }, 20_000),
      ).toBe(true);
      const deadSince = view!.instances[1].last_seen_at;

      const text = await doctor(false);
      expect(text.stdout).toContain(
        `PROBLEM cluster: cluster of 2 instances: node-a (this, ${SENSORS} sensors), node-b dead since ${deadSince}; ` +
          'the dead instance is listed until an administrator removes it\n',
      );
      expect(text.stdout.trimEnd().split('\n').pop()).toBe('1 problem found');
      expect(text.code).toBe(1);
      const json = await doctor(true);
      expect(clusterCheckOf(JSON.parse(json.stdout) as DoctorReport).ok).toBe(false);
      expect(json.code).toBe(1);

      // The doctor only read: the dead instance is still there for the administrator to remove.
      const after = await call<ClusterView>(a, key, 'GET', '/api/cluster');
      expect(after.instances.map((i) => [i.name, i.gone])).toEqual([
        ['node-a', null],
        ['node-b', 'dead'],
      ]);
      expect(after.instances[1].last_seen_at).toBe(deadSince);
    });
  },
);

(onPostgres ? describe.skip : describe)(
  'monitor doctor on SQLite (SQLite only: PostgreSQL may be shared)',
  () => {
    it('says single instance', async () => {
      requireBuiltExecutable();
      const dataDir = tempDir('monitor-doctor-single-');
      try {
        const result = await runCli(['doctor', '--data-dir', dataDir, '--json']);
        expect(clusterCheckOf(JSON.parse(result.stdout) as DoctorReport)).toEqual({
          name: 'cluster',
          ok: true,
          detail: 'single instance (SQLite)',
        });
        const text = await runCli(['doctor', '--data-dir', dataDir]);
        expect(text.stdout).toMatch(/^ok {6}cluster: single instance \(SQLite\)$/m);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  },
);
