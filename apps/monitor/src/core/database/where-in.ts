import type { SqlExecutor } from './sql-client';

/*
 * Statements over a list of ids, in one SQL text for both backends, that several features'
 * repositories run on their own tables (the table is always a constant of the caller).
 */

/** `?, ?, …`: one placeholder per value, for an `IN (…)` list. */
export const placeholdersFor = (values: readonly unknown[]): string => values.map(() => '?').join(', ');

/** How many rows of `table` have `column` in `values`; none for no values (`IN ()` is not SQL). */
export async function countWhereIn(
  tx: SqlExecutor,
  table: string,
  column: string,
  values: readonly number[],
): Promise<number> {
  if (values.length === 0) return 0;
  const row = await tx.get<{ n: number }>(
    `SELECT count(*) AS n FROM ${table} WHERE ${column} IN (${placeholdersFor(values)})`,
    values,
  );
  return Number(row?.n ?? 0);
}

/** Rows of `table` the configuration file managed before and no longer declares go back to the API. */
export async function releaseManagedRows(
  tx: SqlExecutor,
  table: string,
  managedBy: string,
  keep: readonly number[],
): Promise<void> {
  const notIn = keep.length > 0 ? ` AND id NOT IN (${placeholdersFor(keep)})` : '';
  await tx.run(`UPDATE ${table} SET managed_by = NULL WHERE managed_by = ?${notIn}`, [managedBy, ...keep]);
}
