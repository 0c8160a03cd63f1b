import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, type Dialect } from '../dialect';

/**
 * Plain indexes for API filters the earlier schema left to a full scan: the summary's 24-hour
 * uptime of every sensor reads the hourly buckets by time alone. PostgreSQL only: SQLite already
 * answers it with a skip-scan of the primary key and ignores such an index (measured).
 */
export function apiFilterIndexStatements(dialect: Dialect): string[] {
  if (dialect !== 'postgres') return [];
  return [`CREATE INDEX "IDX_rollup_hourly_bucket" ON "rollup_hourly" ("bucket_start")`];
}

/** The expression the text search folds a column with (sql-client's likeFragment on PostgreSQL). */
const folded = (column: string) =>
  `(translate("${column}", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE "C")`;

/**
 * PostgreSQL only, when pg_trgm can be had: trigram indexes on exactly the expressions the incident
 * list's `q` and the global search match `%text%` against (a btree cannot serve a substring).
 * Without them the searches are still correct, only scans.
 */
export const TRIGRAM_INDEXES: readonly { name: string; sql: string }[] = [
  ['IDX_incidents_cause_trgm', 'incidents', 'cause'],
  ['IDX_incidents_note_trgm', 'incidents', 'note'],
  ['IDX_sensors_name_trgm', 'sensors', 'name'],
  ['IDX_probe_results_message_trgm', 'probe_results', 'message'],
].map(([name, table, column]) => ({
  name,
  sql: `CREATE INDEX "${name}" ON "${table}" USING gin (${folded(column)} gin_trgm_ops)`,
}));

type Query = (sql: string) => Promise<unknown>;

/** Whether pg_trgm is installed in this database. */
export async function trigramsInstalled(query: Query): Promise<boolean> {
  return ((await query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)) as unknown[]).length > 0;
}

/**
 * Builds the trigram indexes that are missing, when pg_trgm is installed (also at every start: an
 * administrator may install it after the migration ran without it). False when it is not installed.
 */
export async function addTrigramIndexes(query: Query): Promise<boolean> {
  if (!(await trigramsInstalled(query))) return false;
  for (const index of TRIGRAM_INDEXES)
    await query(index.sql.replace('CREATE INDEX', 'CREATE INDEX IF NOT EXISTS'));
  return true;
}

/** Installs pg_trgm when the server has it and the role may; a refusal must not fail the migration. */
async function installTrigrams(queryRunner: QueryRunner): Promise<void> {
  const query: Query = (sql) => queryRunner.query(sql);
  if (await trigramsInstalled(query)) return;
  const available = (await query(
    `SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'`,
  )) as unknown[];
  if (available.length === 0) return;
  // The savepoint keeps the migration's transaction usable when CREATE EXTENSION is refused.
  await query('SAVEPOINT monitor_trgm');
  try {
    await query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await query('RELEASE SAVEPOINT monitor_trgm');
  } catch {
    await query('ROLLBACK TO SAVEPOINT monitor_trgm');
  }
}

/**
 * Indexes for every filter the API offers (issue 15's audit, `node bench/pg-plans.mjs`): the hourly
 * buckets by time, and on PostgreSQL trigram indexes for the incident search when pg_trgm is there.
 */
export class ApiFilterIndexes1764000000003 implements MigrationInterface {
  name = 'ApiFilterIndexes1764000000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    const dialect = dialectOf(queryRunner);
    for (const statement of apiFilterIndexStatements(dialect)) await queryRunner.query(statement);
    if (dialect !== 'postgres') return;
    await installTrigrams(queryRunner);
    await addTrigramIndexes((sql) => queryRunner.query(sql));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const index of TRIGRAM_INDEXES) await queryRunner.query(`DROP INDEX IF EXISTS "${index.name}"`);
    await queryRunner.query(`DROP INDEX IF EXISTS "IDX_rollup_hourly_bucket"`);
  }
}
