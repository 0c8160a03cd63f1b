import { types, type Pool, type PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import type { EntitySchema, MixedList } from 'typeorm';
import { StartupError } from '../process/startup-error';
import { databaseHost, parsePostgresUrl } from '../config/database-url';
import { markDatabaseError } from './storage-errors';
import { MIGRATION_NAMES, MIGRATIONS } from './migrations';
import { addTrigramIndexes } from './migrations/1764000000003-api-filter-indexes';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type Entities = MixedList<Function | string | EntitySchema>;

/** Connections per process: the scheduler's writes and the API's reads share them. */
export const POOL_SIZE = 10;
/** How long connecting may take before the start fails (or a request waits for a free connection). */
export const CONNECT_TIMEOUT_MS = 10_000;
/** Advisory lock key held while migrating, so processes starting together migrate once. */
export const MIGRATION_LOCK_KEY = 7_310_426_115;

const MIGRATIONS_TABLE = 'migrations';

// Timestamps (bigint milliseconds), counts and sums arrive as JavaScript numbers, as from SQLite:
// every value we store fits in 2^53.
types.setTypeParser(types.builtins.INT8, (value) => Number(value));
types.setTypeParser(types.builtins.NUMERIC, (value) => Number(value));

/**
 * Connects to PostgreSQL (a pool; sslmode and the other URL parameters are read by the driver),
 * refuses a database that holds another application's tables or a newer schema, and applies pending
 * migrations under an advisory lock. Every failure becomes one line naming the host, never the password.
 */
export async function openPostgres(url: string, entities: Entities): Promise<DataSource> {
  const host = databaseHost(url);
  const database = parsePostgresUrl(url)?.pathname.slice(1) || 'the default database';
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    poolSize: POOL_SIZE,
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
    applicationName: 'monitor',
    // Pool errors (a server restart) surface on the next query; the pool replaces the client.
    poolErrorHandler: () => undefined,
  });
  try {
    await dataSource.initialize();
  } catch (error) {
    throw new StartupError(`cannot connect to database at ${host}: ${describePgError(error, url)}`);
  }
  tagConnectionErrors((dataSource.driver as unknown as { master: Pool }).master);
  try {
    await migrateUnderLock(dataSource, database);
  } catch (error) {
    await dataSource.destroy().catch(() => undefined);
    if (error instanceof StartupError) throw error;
    throw new StartupError(`cannot migrate database ${database} at ${host}: ${describePgError(error, url)}`);
  }
  return dataSource;
}

type ConnectCallback = (error: Error | undefined, client: PoolClient | undefined, done: () => void) => void;

/** Clients that already carry the listener below (a pool hands the same client out many times). */
const guarded = new WeakSet<PoolClient>();

/**
 * A pool that cannot connect fails with the network's code (ECONNREFUSED); marked as the database's,
 * such an error answers 503 like any storage failure instead of 500. A client checked out of the
 * pool (a transaction between two statements) that loses its server emits `error` with no listener,
 * which would end the process: it gets one that ignores it, since its next statement fails anyway and
 * the pool drops a broken client when it comes back.
 */
function tagConnectionErrors(pool: Pool): void {
  const connect = pool.connect.bind(pool) as (callback?: ConnectCallback) => Promise<PoolClient> | undefined;
  const guard = (client: PoolClient | undefined) => {
    if (client && !guarded.has(client)) {
      guarded.add(client);
      client.on('error', () => undefined);
    }
    return client;
  };
  const tagged = (callback?: ConnectCallback) => {
    if (callback)
      return connect((error, client, done) =>
        callback(error && markDatabaseError(error), guard(client), done),
      );
    return connect()?.then(
      (client) => guard(client) as PoolClient,
      (error: unknown) => {
        throw markDatabaseError(error);
      },
    );
  };
  pool.connect = tagged as Pool['connect'];
}

async function migrateUnderLock(dataSource: DataSource, database: string): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await refuseForeignSchema(runner.query.bind(runner), database);
      await dataSource.runMigrations({ transaction: 'each' });
      await addTrigramIndexes((sql) => runner.query(sql));
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await runner.release();
  }
}

type Query = (sql: string, parameters?: unknown[]) => Promise<unknown>;

/**
 * A database with tables but without our migrations table belongs to someone else; one whose
 * migrations this build does not know was written by a newer version. Both are refused untouched.
 */
async function refuseForeignSchema(query: Query, database: string): Promise<void> {
  const tables = (await query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`,
  )) as { table_name: string }[];
  if (tables.length === 0) return;
  if (!tables.some((t) => t.table_name === MIGRATIONS_TABLE)) {
    throw new StartupError(
      `database ${database} holds tables of another application (no ${MIGRATIONS_TABLE} table); use an empty database`,
    );
  }
  const applied = (await query(`SELECT name FROM "${MIGRATIONS_TABLE}" ORDER BY id`)) as { name: string }[];
  const unknown = applied.map((m) => m.name).filter((name) => !MIGRATION_NAMES.includes(name));
  if (applied.length > 0 && applied[0].name !== MIGRATION_NAMES[0]) {
    throw new StartupError(
      `database ${database} holds another application's migrations; use an empty database`,
    );
  }
  if (unknown.length > 0) {
    throw new StartupError(
      `database ${database} has schema version ${applied.length}, newer than this build's ${MIGRATION_NAMES.length} (unknown migration ${unknown[0]}); upgrade the monitor`,
    );
  }
}

/** The driver's reason in one line, with anything of the URL (the password above all) removed. */
export function describePgError(error: unknown, url: string): string {
  const err = error as { code?: string; message?: string };
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    ETIMEDOUT: 'connection timed out',
    EHOSTUNREACH: 'host unreachable',
    ECONNRESET: 'connection reset',
  };
  let text = err?.code && reasons[err.code] ? reasons[err.code] : (err?.message ?? String(error));
  text = text.split('\n')[0];
  const parsed = parsePostgresUrl(url);
  const secrets = [url.trim(), parsed?.password, parsed && decodeURIComponent(parsed.password)];
  for (const secret of secrets) if (secret) text = text.split(secret).join('***');
  return text || 'unknown error';
}
