import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { Client } from 'pg';
import { PgCluster, startPostgresCluster, TEST_SUPERUSER } from '../support/postgres-cluster';
import { databaseOf } from '../support/postgres-names';

jest.setTimeout(120_000);

const query = async (url: string, sql: string): Promise<Record<string, unknown>[]> => {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
};

/** Resolves true when something accepts a TCP connection at host:port, false when refused. */
const accepts = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(5_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });

/** Resolves true when this process can listen on 127.0.0.1:port itself. */
const canListen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

describe('throw-away PostgreSQL cluster for tests', () => {
  let cluster: PgCluster | undefined;

  afterAll(async () => {
    await cluster?.stop();
  });

  it('starts on a loopback port, keeps two databases apart, and leaves nothing behind when stopped', async () => {
    cluster = await startPostgresCluster();
    const { port, directory } = cluster;
    expect(cluster.host).toBe('127.0.0.1');
    expect(cluster.adminUrl).toBe(`postgres://${TEST_SUPERUSER}@127.0.0.1:${port}/postgres`);
    expect(fs.existsSync(path.join(directory, 'data', 'PG_VERSION'))).toBe(true);

    const first = await cluster.createDatabase('harness_first');
    const second = await cluster.createDatabase();
    expect(databaseOf(first)).toBe('harness_first');
    expect(databaseOf(second)).not.toBe('harness_first');
    for (const url of [first, second]) {
      expect(url).not.toMatch(/:[^/@]*@/); // no password in the URL
      expect(await query(url, 'select 1 as one')).toEqual([{ one: 1 }]);
    }

    const [settings] = await query(
      first,
      `select current_setting('listen_addresses') as listen, host(inet_server_addr()) as server,
              current_setting('fsync') as fsync, current_setting('max_connections') as max_connections,
              current_user as "user", current_database() as database`,
    );
    expect(settings).toEqual({
      listen: '127.0.0.1',
      server: '127.0.0.1',
      fsync: 'off',
      max_connections: '200',
      user: TEST_SUPERUSER,
      database: 'harness_first',
    });
    // Only 127.0.0.1: the IPv6 loopback (the only other address a test may touch) is not served.
    expect(await accepts('::1', port)).toBe(false);

    await query(first, 'create table only_in_first (id integer primary key)');
    await query(first, 'insert into only_in_first values (1)');
    expect(await query(first, `select to_regclass('only_in_first') is not null as present`)).toEqual([
      { present: true },
    ]);
    expect(await query(second, `select to_regclass('only_in_first') is not null as present`)).toEqual([
      { present: false },
    ]);

    await cluster.dropDatabase(databaseOf(second));
    const names = await query(cluster.adminUrl, 'select datname from pg_database order by datname');
    expect(names.map((row) => row.datname)).toEqual(['harness_first', 'postgres', 'template0', 'template1']);

    await cluster.stop();
    expect(fs.existsSync(directory)).toBe(false);
    expect(await accepts('127.0.0.1', port)).toBe(false);
    expect(await canListen(port)).toBe(true);
  });

  it('is stopped and removed by its watchdog when the process that owns it dies', async () => {
    // A stand-in owner that can be killed without killing jest; the watchdog polls it once a second.
    const owner = spawn('sleep', ['600'], { stdio: 'ignore' });
    const orphan = await startPostgresCluster({ ownerPid: owner.pid });
    expect(await accepts('127.0.0.1', orphan.port)).toBe(true);

    owner.kill('SIGKILL');
    const deadline = Date.now() + 30_000;
    while (fs.existsSync(orphan.directory) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const removed = !fs.existsSync(orphan.directory);
    const refused = !(await accepts('127.0.0.1', orphan.port));
    if (!removed || !refused) await orphan.stop();
    expect({ removed, refused }).toEqual({ removed: true, refused: true });
  });
});
