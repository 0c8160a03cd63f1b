import type { DoctorCheck } from '@monitor/contracts';
import { clusterCheck, clusterViewOf } from '@monitor/domain';
import { Client } from 'pg';
import { type RawInstanceRow, readInstances } from '../../cluster/cluster-rows.sql';
import { databaseHost, maskDatabaseUrl } from '../config/database-url';
import { declaredNameIndexes } from './migrations/1764000000001-only-once-rules';
import { alertOutboxStatements } from './migrations/1764000000002-alert-outbox';
import { apiFilterIndexStatements, TRIGRAM_INDEXES } from './migrations/1764000000003-api-filter-indexes';
import { clusterStatements } from './migrations/1764000000004-cluster';
import { statusPageStatements } from './migrations/1764000000005-status-pages';
import { spentChallengeStatements } from './migrations/1764260000000-spent-challenges';
import { POSTGRES_INITIAL_SCHEMA } from './migrations/postgres-initial-schema';
import { CONNECT_TIMEOUT_MS, describePgError } from './open-postgres';

/** Tables and indexes the PostgreSQL schema defines, read from its migrations' own statements. */
export function expectedPostgresObjects(statements: readonly string[] = postgresStatements()): {
  tables: string[];
  indexes: string[];
} {
  const names = (pattern: RegExp) =>
    statements.flatMap((sql) => [...sql.matchAll(pattern)].map((match) => match[1]));
  return {
    tables: names(/CREATE TABLE "([^"]+)"/g),
    indexes: names(/CREATE (?:UNIQUE )?INDEX "([^"]+)"/g),
  };
}

/** The PostgreSQL statements of every migration that creates tables or indexes. */
const postgresStatements = (): string[] => [
  ...POSTGRES_INITIAL_SCHEMA,
  ...declaredNameIndexes(),
  ...alertOutboxStatements('postgres'),
  ...apiFilterIndexStatements('postgres'),
  ...clusterStatements('postgres'),
  ...statusPageStatements('postgres'),
  ...spentChallengeStatements('postgres'),
];

/** What the `cluster` check needs from the configuration. */
export interface ClusterCheckOptions {
  /** `cluster.dead_after` in milliseconds. */
  deadAfterMs: number;
  /** The configured `instance_name`, marked "this" when it is listed. */
  self: string;
}

/**
 * The doctor's database checks on PostgreSQL: connects (read-only session), reports the server
 * version, whether every table and index of the schema is there and valid, the migration state and
 * the tables' sizes, and with `cluster` the instances sharing the database. Writes nothing. The URL
 * is shown with its password masked.
 */
export async function checkPostgres(
  url: string,
  checkMigrations: (applied: string[] | null) => DoctorCheck,
  cluster?: ClusterCheckOptions,
): Promise<DoctorCheck[]> {
  const shown = maskDatabaseUrl(url);
  const client = new Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    options: '-c default_transaction_read_only=on',
    application_name: 'monitor doctor',
  });
  try {
    await client.connect();
  } catch (error) {
    const detail = `cannot connect to ${databaseHost(url)}: ${describePgError(error, url)}`;
    return [
      { name: 'database', ok: false, detail },
      { name: 'migrations', ok: false, detail: 'no database to inspect' },
    ];
  }
  client.on('error', () => undefined);
  try {
    const version = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v"))
      .rows[0].v;
    const tables = new Set(
      (
        await client.query<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`,
        )
      ).rows.map((r) => r.name),
    );
    const heading = `${shown}: PostgreSQL ${version}`;
    // The same words as the SQLite check and as serve's refusal, not a list of "missing" tables.
    if (tables.size > 0 && !tables.has('migrations'))
      return [
        {
          name: 'database',
          ok: false,
          detail: `${heading} is not a monitor database (no migrations table; tables ${[...tables].sort().join(', ')})`,
        },
        {
          name: 'migrations',
          ok: false,
          detail: 'not inspected: the database belongs to another application',
        },
      ];
    const applied = tables.has('migrations')
      ? (await client.query<{ name: string }>('SELECT name FROM migrations ORDER BY id')).rows.map(
          (r) => r.name,
        )
      : null;
    const database = await inspectSchema(client, tables, heading);
    const checks = [database, checkMigrations(applied), await tableSizes(client, tables)];
    if (cluster) checks.push(await clusterInstances(client, tables, cluster));
    return checks;
  } catch (error) {
    return [
      { name: 'database', ok: false, detail: `${shown}: ${describePgError(error, url)}` },
      { name: 'migrations', ok: false, detail: 'not inspected' },
    ];
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function inspectSchema(client: Client, tables: Set<string>, heading: string): Promise<DoctorCheck> {
  const expected = expectedPostgresObjects();
  if (tables.size === 0)
    return {
      name: 'database',
      ok: false,
      detail: `${heading}; empty (the service creates the schema on first start)`,
    };
  const missingTables = expected.tables.filter((t) => !tables.has(t));
  const indexes = (
    await client.query<{ name: string; valid: boolean }>(
      `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema()`,
    )
  ).rows;
  // The trigram indexes exist only where pg_trgm could be installed; without it they are not expected.
  const trigrams =
    (await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)).rows.length > 0;
  const wanted = [...expected.indexes, ...(trigrams ? TRIGRAM_INDEXES.map((i) => i.name) : [])];
  const missingIndexes = wanted.filter((name) => !indexes.some((i) => i.name === name));
  const invalidIndexes = indexes.filter((i) => !i.valid).map((i) => i.name);
  const unvalidated = (
    await client.query<{ name: string }>(
      `SELECT c.conname AS name FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
       WHERE n.nspname = current_schema() AND NOT c.convalidated`,
    )
  ).rows.map((r) => r.name);
  const problems = [
    missingTables.length > 0 && `missing tables: ${missingTables.join(', ')}`,
    missingIndexes.length > 0 && `missing indexes: ${missingIndexes.join(', ')}`,
    invalidIndexes.length > 0 && `invalid indexes: ${invalidIndexes.join(', ')}`,
    unvalidated.length > 0 && `constraints not validated: ${unvalidated.join(', ')}`,
  ].filter((p): p is string => typeof p === 'string');
  if (problems.length > 0)
    return { name: 'database', ok: false, detail: `${heading}; ${problems.join('; ')}` };
  return {
    name: 'database',
    ok: true,
    detail: `${heading}; schema intact (${expected.tables.length} tables, ${wanted.length} indexes valid)${
      trigrams ? '' : '; text search without trigram indexes (pg_trgm not installed)'
    }`,
  };
}

/**
 * The instances registered in `cluster_instances`, judged on the database's clock as the instances
 * judge each other, and the enabled sensors each active one owns by the same rendezvous hashing.
 */
async function clusterInstances(
  client: Client,
  tables: Set<string>,
  { deadAfterMs, self }: ClusterCheckOptions,
): Promise<DoctorCheck> {
  if (!tables.has('cluster_instances') || !tables.has('sensors'))
    return { name: 'cluster', ok: true, detail: 'cluster on PostgreSQL: no instance registered' };
  const { now, rows: members } = await readInstances(
    async (sql) => (await client.query<RawInstanceRow>(sql)).rows,
  );
  const enabled = (
    await client.query<{ id: number }>('SELECT id FROM sensors WHERE enabled ORDER BY id')
  ).rows.map((r) => Number(r.id));
  return clusterCheck(clusterViewOf(members, now, deadAfterMs, enabled, self));
}

async function tableSizes(client: Client, tables: Set<string>): Promise<DoctorCheck> {
  const rows = (
    await client.query<{ name: string; bytes: number }>(
      `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY bytes DESC, c.relname`,
    )
  ).rows.filter((r) => tables.has(r.name));
  const total = rows.reduce((sum, r) => sum + Number(r.bytes), 0);
  const list = rows.map((r) => `${r.name} ${formatBytes(Number(r.bytes))}`).join(', ');
  return { name: 'tables', ok: true, detail: `${formatBytes(total)} in all: ${list}` };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}
