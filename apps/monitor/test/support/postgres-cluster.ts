import { ChildProcess, execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import {
  highestVersionDir,
  isAddressInUse,
  postgresUrl,
  quoteIdentifier,
  sanitiseDatabaseName,
} from './postgres-names';

/**
 * A throw-away PostgreSQL cluster for tests: initdb in a temp directory, loopback only, a free port,
 * trust authentication (no password anywhere), durability off for speed. Never a system service.
 */
export interface PgCluster {
  readonly port: number;
  readonly host: '127.0.0.1';
  readonly user: string;
  /** URL of the `postgres` maintenance database, for creating and dropping databases. */
  readonly adminUrl: string;
  /** The temp directory holding the data directory, the socket and the server log. */
  readonly directory: string;
  /** Creates an empty database (a generated name unless given) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  dropDatabase(name: string): Promise<void>;
  /** Stops the server (fast shutdown) and removes the temp directory. */
  stop(): Promise<void>;
  /**
   * Shuts the server down, keeping its data: clients see the database go away. `fast` ends the
   * sessions cleanly; `immediate` is a crash (recovery at the next start).
   */
  pause(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts the paused server again on the same port with the same data. */
  resume(): Promise<void>;
  /** The same, synchronously and with an immediate shutdown: for process 'exit' handlers. */
  stopSync(): void;
}

export const TEST_SUPERUSER = 'monitor_test';
const HOST = '127.0.0.1';
const START_ATTEMPTS = 5;
const POSTGRES_OS_USER = 'postgres';

/** Settings for a disposable test server; fsync and friends are off because the data is thrown away. */
const serverSettings = (socketDir: string): string[] => [
  `listen_addresses = '${HOST}'`,
  `unix_socket_directories = '${socketDir.replace(/'/g, "''")}'`,
  'fsync = off',
  'synchronous_commit = off',
  'full_page_writes = off',
  'max_connections = 200',
];

/** Where initdb, pg_ctl and postgres live: pg_config's bindir, else Debian's highest version. */
export function findPostgresBinDir(): string {
  const hasInitdb = (dir: string): boolean => fs.existsSync(path.join(dir, 'initdb'));
  const override = process.env.MONITOR_TEST_PG_BINDIR;
  if (override) {
    if (!hasInitdb(override)) throw new Error(`MONITOR_TEST_PG_BINDIR=${override} has no initdb`);
    return override;
  }
  try {
    const dir = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (dir && hasInitdb(dir)) return dir;
  } catch {
    // pg_config is absent or belongs to a client-only install: look in Debian's layout.
  }
  const debianRoot = '/usr/lib/postgresql';
  const versions = fs.existsSync(debianRoot) ? fs.readdirSync(debianRoot) : [];
  const usable = versions.filter((v) => hasInitdb(path.join(debianRoot, v, 'bin')));
  const highest = highestVersionDir(usable);
  if (highest) return path.join(debianRoot, highest, 'bin');
  throw new Error(
    'PostgreSQL server binaries not found (no initdb from pg_config --bindir or in /usr/lib/postgresql/*/bin): ' +
      'install Debian\'s "postgresql" package (apt-get install postgresql)',
  );
}

/** PostgreSQL refuses to run as root, so root runs its binaries as the postgres user. */
function osUser(): { prefix: string[]; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const id = (flag: string): number =>
    Number(execFileSync('id', [flag, POSTGRES_OS_USER], { encoding: 'utf8' }).trim());
  return { prefix: ['runuser', '-u', POSTGRES_OS_USER, '--'], uid: id('-u'), gid: id('-g') };
}

/** The environment for the binaries: no PG* variables of the caller, English messages. */
function binaryEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(PG|LC_|LANG)/.test(key)) env[key] = value;
  }
  return { ...env, LANG: 'C.UTF-8', LC_MESSAGES: 'C' };
}

function run(command: string[], cwd: string): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const [file, ...args] = command;
    execFile(file, args, { cwd, env: binaryEnv(), timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ ok: !error, output: `${stdout}${stderr}${error && !stderr ? error.message : ''}` });
    });
  });
}

/** A port nobody listens on right now (the kernel's pick for port 0, released again). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const readLog = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

/**
 * Source of a detached watchdog: when the process that started the cluster dies without stopping it
 * (a crashed or killed jest), it shuts the server down and removes the directory. PostgreSQL has no
 * parent-death option of its own.
 */
const WATCHDOG = `
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const [ownerPid, root, ...stop] = process.argv.slice(1);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
setInterval(() => {
  if (!fs.existsSync(root)) process.exit(0);
  if (alive(Number(ownerPid))) return;
  spawnSync(stop[0], stop.slice(1), { stdio: 'ignore', cwd: root });
  fs.rmSync(root, { recursive: true, force: true });
  process.exit(0);
}, 1000);
`;

export interface StartOptions {
  /** The process whose death stops the cluster (default: this one). */
  ownerPid?: number;
}

export async function startPostgresCluster(options: StartOptions = {}): Promise<PgCluster> {
  const binDir = findPostgresBinDir();
  const bin = (name: string): string => path.join(binDir, name);
  const user = osUser();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-pg-'));
  const dataDir = path.join(root, 'data');
  const logFile = path.join(root, 'postgres.log');
  const as = (command: string[]): string[] => [...user.prefix, ...command];
  const removeRoot = (): void => fs.rmSync(root, { recursive: true, force: true });
  const stopCommand = (mode: 'fast' | 'immediate'): string[] =>
    as([bin('pg_ctl'), '-D', dataDir, '-m', mode, '-w', 'stop']);
  let watchdog: ChildProcess | undefined;

  try {
    if (user.uid !== undefined && user.gid !== undefined) fs.chownSync(root, user.uid, user.gid);
    await initCluster(as, bin, dataDir, root);
    fs.appendFileSync(
      path.join(dataDir, 'postgresql.conf'),
      `\n# monitor test harness\n${serverSettings(root).join('\n')}\n`,
    );
    const port = await startServer(as, bin, dataDir, logFile, root);
    watchdog = spawn(
      process.execPath,
      ['-e', WATCHDOG, String(options.ownerPid ?? process.pid), root, ...stopCommand('immediate')],
      {
        detached: true,
        stdio: 'ignore',
      },
    );
    watchdog.unref();
    const startCommand = as([
      bin('pg_ctl'),
      '-D',
      dataDir,
      '-l',
      logFile,
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port}`,
      'start',
    ]);
    return makeCluster({ port, root, stopCommand, startCommand, removeRoot, watchdog });
  } catch (error) {
    watchdog?.kill();
    const [file, ...args] = stopCommand('immediate');
    spawnSync(file, args, { cwd: root, env: binaryEnv(), stdio: 'ignore', timeout: 30_000 });
    removeRoot();
    throw error;
  }
}

async function initCluster(
  as: (command: string[]) => string[],
  bin: (name: string) => string,
  dataDir: string,
  cwd: string,
): Promise<void> {
  const base = [
    bin('initdb'),
    '-D',
    dataDir,
    '-U',
    TEST_SUPERUSER,
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ];
  let result = await run(as([...base, '--locale=C.UTF-8']), cwd);
  if (!result.ok) {
    // A system without the C.UTF-8 locale: the plain C locale sorts the same (bytewise).
    fs.rmSync(dataDir, { recursive: true, force: true });
    result = await run(as([...base, '--locale=C']), cwd);
  }
  if (!result.ok) throw new Error(`initdb failed:\n${result.output}`);
}

async function startServer(
  as: (command: string[]) => string[],
  bin: (name: string) => string,
  dataDir: string,
  logFile: string,
  cwd: string,
): Promise<number> {
  let lastOutput = '';
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    const port = await freePort();
    const logBefore = readLog(logFile).length;
    const result = await run(
      as([bin('pg_ctl'), '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', `-p ${port}`, 'start']),
      cwd,
    );
    if (result.ok) return port;
    const log = readLog(logFile).slice(logBefore);
    lastOutput = `${result.output}\n${log}`;
    // Another process took the port between our probe and the server's bind: try another one.
    if (!isAddressInUse(log)) break;
  }
  throw new Error(`PostgreSQL did not start:\n${lastOutput.trim()}`);
}

function makeCluster(parts: {
  port: number;
  root: string;
  stopCommand: (mode: 'fast' | 'immediate') => string[];
  startCommand: string[];
  removeRoot: () => void;
  watchdog: ChildProcess;
}): PgCluster {
  const { port, root, stopCommand, startCommand, removeRoot, watchdog } = parts;
  const adminUrl = postgresUrl({ host: HOST, port, user: TEST_SUPERUSER, database: 'postgres' });
  let generated = 0;
  let stopped = false;

  const admin = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const finish = (): void => {
    watchdog.kill();
    removeRoot();
  };

  return {
    port,
    host: HOST,
    user: TEST_SUPERUSER,
    adminUrl,
    directory: root,
    async createDatabase(name?: string): Promise<string> {
      const database = name ?? sanitiseDatabaseName(`test_${process.pid}_${++generated}`);
      await admin((client) => client.query(`CREATE DATABASE ${quoteIdentifier(database)}`));
      return postgresUrl({ host: HOST, port, user: TEST_SUPERUSER, database });
    },
    async dropDatabase(name: string): Promise<void> {
      // FORCE ends sessions a test left open, so a leaked pool cannot block the drop.
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`));
    },
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      const fast = await run(stopCommand('fast'), root);
      if (!fast.ok) await run(stopCommand('immediate'), root);
      finish();
    },
    async pause(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
      const result = await run(stopCommand(mode), root);
      if (!result.ok) throw new Error(`pg_ctl stop failed:\n${result.output}`);
    },
    async resume(): Promise<void> {
      const result = await run(startCommand, root);
      if (!result.ok) throw new Error(`pg_ctl start failed:\n${result.output}`);
    },
    stopSync(): void {
      if (stopped) return;
      stopped = true;
      const [file, ...args] = stopCommand('immediate');
      spawnSync(file, args, { cwd: root, env: binaryEnv(), stdio: 'ignore', timeout: 30_000 });
      finish();
    },
  };
}

/** Runs one statement on its own connection to `url` (an administrator's look from outside the app). */
export async function queryOnce<T = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
