import * as fs from 'node:fs';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import type { MixedList, EntitySchema } from 'typeorm';
import { currentUidText, describeErrno, StartupError } from '../process/startup-error';
import { databasePath } from './database-path';
import { createPrivateFile, makePrivateDirectory, tightenPrivateFiles } from './private-files';
import { noSpaceText, WAL_AUTOCHECKPOINT_PAGES, WAL_SIZE_LIMIT_BYTES } from './disk-space';
import { APPLICATION_ID, foreignDatabaseText, identifyDatabaseFile } from './database-identity';
import { MIGRATIONS } from './migrations';
import { runMigrationsOnce } from './run-migrations-once';
import { StorageHealth } from './storage-health';
import { keepTransactionStateInStep } from './transaction-state';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type Entities = MixedList<Function | string | EntitySchema>;

/** Milliseconds a writer waits for a lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

const cannotOpenDatabase = (file: string, error: unknown): StartupError =>
  new StartupError(
    noSpaceText(file, path.dirname(file), error) ??
      `cannot open database ${file}${currentUidText()}: ${describeErrno(error)}`,
  );

/**
 * Creates the data directory when missing, opens `<data-dir>/monitor.db` (WAL, foreign keys,
 * busy timeout), applies pending migrations and marks the file as ours. A database of another
 * application is refused before anything writes to it. Any failure becomes one operator-readable line.
 */
export async function openDatabase(
  dataDir: string,
  entities: Entities,
  health = new StorageHealth(),
): Promise<DataSource> {
  const file = databasePath(dataDir);
  const cannotOpen = (error: unknown) => cannotOpenDatabase(file, error);
  prepareSqliteDirectory(dataDir);

  // Opening through TypeORM switches the file to WAL at once: look at it read-only first.
  let identity: ReturnType<typeof identifyDatabaseFile>;
  try {
    identity = await whileBusy(() => identifyDatabaseFile(file));
  } catch (error) {
    throw cannotOpen(error);
  }
  if (identity.kind === 'foreign') throw new StartupError(foreignDatabaseText(file, identity.reason));

  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: file,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    enableWAL: true,
    timeout: BUSY_TIMEOUT_MS,
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      // WAL with synchronous=NORMAL is durable across process crashes and much cheaper per commit.
      db.pragma('synchronous = NORMAL');
      // The log stays small (see WAL_AUTOCHECKPOINT_PAGES): on a full disk it must not take
      // the space an operator frees. Results are group-committed, so a checkpoint still writes
      // each page back once for many commits.
      db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    },
  });
  keepTransactionStateInStep(dataSource, health);
  try {
    await whileBusy(() => dataSource.initialize());
  } catch (error) {
    throw cannotOpen(error);
  }
  try {
    await runMigrationsOnce(dataSource);
    if (identity.kind !== 'ours') await dataSource.query(`PRAGMA application_id = ${APPLICATION_ID}`);
  } catch (error) {
    await dataSource.destroy().catch(() => undefined);
    throw new StartupError(
      noSpaceText(file, dataDir, error) ?? `cannot migrate database ${file}: ${describeErrno(error)}`,
    );
  }
  return dataSource;
}

/**
 * Creates the data directory when missing and checks that this process may write in it and the
 * database file; `serve` calls it before taking the directory's lock, so both fail with one line.
 */
export function prepareSqliteDirectory(dataDir: string): void {
  const file = databasePath(dataDir);
  try {
    makeDataDirectory(dataDir);
    if (fs.existsSync(file)) fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    // SQLite gives -wal and -shm the mode of the database file: 0600 from the first byte on.
    else createDatabaseFile(file);
    tightenPrivateFiles(dataDir);
  } catch (error) {
    throw cannotOpenDatabase(file, error);
  }
}

/** An empty file is a new database to SQLite; another process may have created it first. */
function createDatabaseFile(file: string): void {
  try {
    createPrivateFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Creates the data directory (0700) when missing and checks that this process may write in it. */
function makeDataDirectory(dataDir: string): void {
  makePrivateDirectory(dataDir);
  fs.accessSync(dataDir, fs.constants.W_OK | fs.constants.X_OK);
}

/**
 * On PostgreSQL the data directory holds no database but the restore's safety copies: a directory
 * this process cannot write stops the start, as it does on SQLite, instead of failing the first restore.
 */
export function prepareDataDirectory(dataDir: string): void {
  try {
    makeDataDirectory(dataDir);
    tightenPrivateFiles(dataDir);
  } catch (error) {
    throw new StartupError(
      `cannot use data directory ${dataDir}${currentUidText()}: ${describeErrno(error)}`,
    );
  }
}

/**
 * Runs `open` again while it fails with SQLITE_BUSY, up to the busy timeout. A process starting
 * while another one creates the same database finds it locked in ways SQLite's busy handler does
 * not wait out (switching to WAL needs the file to itself for a moment).
 */
async function whileBusy<T>(open: () => T | Promise<T>): Promise<T> {
  const until = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      return await open();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
