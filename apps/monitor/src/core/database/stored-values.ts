/** A boolean column as either backend answers it: SQLite's 1/0, PostgreSQL's true/false. */
export const storedBoolean = (value: unknown): boolean => value === true || value === 1;

/** A JSON text column read back, or `fallback` when the text is not JSON (a hand-edited row). */
export function parseJsonOr<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** Bound parameters per multi-row INSERT: under SQLite's 32,766 and PostgreSQL's 65,535. */
export const MAX_INSERT_PARAMETERS = 30_000;

/**
 * `INSERT INTO table (columns) VALUES (…), (…)` for `rows`, in statements of at most
 * MAX_INSERT_PARAMETERS values each (one SQL text for both backends).
 */
export async function insertRows(
  tx: { run(sql: string, params?: readonly unknown[]): Promise<unknown> },
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  const perStatement = Math.max(1, Math.floor(MAX_INSERT_PARAMETERS / columns.length));
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
  for (let start = 0; start < rows.length; start += perStatement) {
    const slice = rows.slice(start, start + perStatement);
    await tx.run(head + Array(slice.length).fill(tuple).join(', '), slice.flat());
  }
}
