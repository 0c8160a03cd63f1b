import { Writable } from 'node:stream';
import { ClusterLocks } from '../../src/cluster/cluster-locks.service';
import { resolveConfig } from '../../src/core/config/config.resolve';
import { ClusterSession } from '../../src/core/database/cluster-session';
import { createLogger } from '../../src/core/logging/logger';
import { instanceIdentity } from '../../src/core/process/instance-identity';
import { testBackend, testDatabaseUrl } from '../support/test-database';

/**
 * Cluster-wide singletons (issue 16): the history pass, the configuration file and sample data run
 * on one instance at a time. Two instances' own sessions on one real PostgreSQL database.
 */
const onPostgres = testBackend() === 'postgres' ? describe : describe.skip;

onPostgres('cluster-wide locks (PostgreSQL only: SQLite has one process)', () => {
  const sessions: ClusterSession[] = [];
  let url: string;

  beforeAll(async () => {
    url = await testDatabaseUrl();
  });

  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });

  async function instance(name: string): Promise<{ locks: ClusterLocks; session: ClusterSession }> {
    const config = resolveConfig({
      env: { MONITOR_DATABASE_URL: url, MONITOR_INSTANCE_NAME: name },
      flags: { listen: '127.0.0.1:0', dataDir: '/tmp' },
      cwd: process.cwd(),
    });
    const logger = createLogger('error', new Writable({ write: (_c, _e, done) => done() }));
    const session = new ClusterSession(config, logger);
    await session.connect();
    sessions.push(session);
    return { locks: new ClusterLocks(instanceIdentity(config), session), session };
  }

  it('ifFree skips work another instance is doing, and runs it once that one is done', async () => {
    const [a, b] = [await instance('a'), await instance('b')];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = a.locks.ifFree('history-maintenance', async () => {
      await held;
      return 'a ran';
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await b.locks.ifFree('history-maintenance', async () => 'b ran')).toBeNull();
    // Another name is free meanwhile.
    expect(await b.locks.ifFree('sample-data', async () => 'b ran')).toBe('b ran');
    release();
    expect(await first).toBe('a ran');
    expect(await b.locks.ifFree('history-maintenance', async () => 'b ran')).toBe('b ran');
  });

  it('exclusive waits for the other instance, and a dead holder frees the lock with its session', async () => {
    const [a, b] = [await instance('a'), await instance('b')];
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = a.locks.exclusive('declared-configuration', async () => {
      order.push('a start');
      await held;
      order.push('a end');
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = b.locks.exclusive('declared-configuration', async () => void order.push('b'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(order).toEqual(['a start']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['a start', 'a end', 'b']);

    // A holder whose session ends (the process died) holds nothing any more.
    const c = await instance('c');
    let never!: () => void;
    void c.locks.exclusive('sample-data', () => new Promise<void>((resolve) => (never = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await b.locks.ifFree('sample-data', async () => 'b ran')).toBeNull();
    await c.session.close();
    expect(await b.locks.ifFree('sample-data', async () => 'b ran')).toBe('b ran');
    never();
  });
});
