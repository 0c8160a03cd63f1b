import { openDatabase } from './open-database';
import { openPostgres } from './open-postgres';
import { resetIdentity, sqlClientFor, type SqlClient, type SqlExecutor } from './sql-client';
import { readTableShapes, type TableShape } from './table-metadata';

/** Rows read from the source per statement. */
const PAGE_ROWS = 2000;
/** Bound parameters per INSERT: under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMETERS = 30_000;

export interface CopyReport {
  /** Rows per table, in the order the tables were copied. */
  tables: { name: string; rows: number }[];
}

export class CopyRefusedError extends Error {
  override readonly name = 'CopyRefusedError';
}

/**
 * Copies every row of every table from one database into another of the same schema version,
 * across backends. The source is read in one consistent snapshot; the target is written in one
 * transaction, so a failure leaves it as empty as it was. Refuses a target that holds any row.
 * Row counts are compared afterwards.
 */
export async function copyDatabase(
  source: SqlClient,
  target: SqlClient,
  progress: (table: string, rows: number) => void = () => undefined,
): Promise<CopyReport> {
  const sourceShapes = await readTableShapes(source);
  const targetShapes = await readTableShapes(target);
  const missing = sourceShapes.filter((s) => !targetShapes.some((t) => t.name === s.name)).map((s) => s.name);
  if (missing.length > 0) throw new CopyRefusedError(`the target has no table ${missing.join(', ')}`);
  for (const shape of targetShapes) {
    if (await target.get(`SELECT 1 AS found FROM "${shape.name}" LIMIT 1`))
      throw new CopyRefusedError(`the target is not empty: table ${shape.name} holds rows`);
  }

  const report: CopyReport = { tables: [] };
  await source.transaction(
    (from) =>
      target.transaction(async (to) => {
        for (const shape of targetShapes) {
          const rows = await copyTable(from, to, shape);
          report.tables.push({ name: shape.name, rows });
          progress(shape.name, rows);
        }
      }),
    { readOnly: true },
  );

  for (const { name, rows } of report.tables) {
    const counted = await countRows(target, name);
    if (counted !== rows)
      throw new Error(`row count differs after copying ${name}: ${rows} read, ${counted} in the target`);
  }
  return report;
}

async function countRows(db: SqlExecutor, table: string): Promise<number> {
  return (await db.get<{ n: number }>(`SELECT count(*) AS n FROM "${table}"`))?.n ?? 0;
}

async function copyTable(from: SqlExecutor, to: SqlExecutor, shape: TableShape): Promise<number> {
  const columns = shape.columns;
  const list = columns.map((c) => `"${c}"`).join(', ');
  const key = shape.primaryKey.map((c) => `"${c}"`).join(', ');
  const perInsert = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  // A row pointing at a row of its own table may come before it: such links are set afterwards.
  const links: { key: unknown[]; values: unknown[] }[] = [];
  let after: unknown[] | null = null;
  let copied = 0;
  for (;;) {
    const rows: Record<string, unknown>[] = await from.all(
      `SELECT ${list} FROM "${shape.name}"${after ? ` WHERE (${key}) > (${after.map(() => '?').join(', ')})` : ''}
       ORDER BY ${key} LIMIT ${PAGE_ROWS}`,
      after ?? [],
    );
    if (rows.length === 0) break;
    for (let start = 0; start < rows.length; start += perInsert) {
      const chunk = rows.slice(start, start + perInsert);
      const values: unknown[] = [];
      for (const row of chunk) {
        if (shape.selfReferences.some((c) => row[c] !== null)) {
          links.push({
            key: shape.primaryKey.map((c) => row[c]),
            values: shape.selfReferences.map((c) => row[c]),
          });
        }
        for (const column of columns) {
          const value = shape.selfReferences.includes(column) ? null : row[column];
          values.push(shape.booleans.has(column) && value !== null ? value === true || value === 1 : value);
        }
      }
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      await to.run(
        `INSERT INTO "${shape.name}" (${list}) VALUES ${chunk.map(() => tuple).join(', ')}`,
        values,
      );
    }
    copied += rows.length;
    const last = rows[rows.length - 1];
    after = shape.primaryKey.map((c) => last[c]);
  }
  const set = shape.selfReferences.map((c) => `"${c}" = ?`).join(', ');
  const where = shape.primaryKey.map((c) => `"${c}" = ?`).join(' AND ');
  for (const link of links)
    await to.run(`UPDATE "${shape.name}" SET ${set} WHERE ${where}`, [...link.values, ...link.key]);
  if (columns.includes('id') && shape.primaryKey.join() === 'id') await resetIdentity(to, shape.name);
  return copied;
}

/** A database opened (and migrated) for copying: its client and how to close it. */
export interface OpenedStorage {
  client: SqlClient;
  close(): Promise<void>;
}

/** Opens the SQLite file of a data directory or a PostgreSQL database, migrated to this build's schema. */
export async function openStorage(where: { url: string } | { dataDir: string }): Promise<OpenedStorage> {
  const dataSource =
    'url' in where ? await openPostgres(where.url, []) : await openDatabase(where.dataDir, []);
  return { client: sqlClientFor(dataSource), close: () => dataSource.destroy() };
}
