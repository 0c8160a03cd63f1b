import type { SqlExecutor } from '../core/database/sql-client';

/*
 * The settings and installation-secret rows as backup and restore read and write them, in one SQL
 * text for both backends (the backup's snapshot, the restore's transaction). Nest-free.
 */

/** Every setting's key and stored JSON text, by key. */
export function exportSettings(tx: SqlExecutor): Promise<{ key: string; value: string }[]> {
  return tx.all<{ key: string; value: string }>('SELECT key, value FROM settings ORDER BY key');
}

/** Replaces every setting whose key does not start with `keepPrefix` by `entries`. */
export async function importSettings(
  tx: SqlExecutor,
  entries: Iterable<[string, unknown]>,
  keepPrefix: string,
  now: number,
): Promise<number> {
  await tx.run('DELETE FROM settings WHERE substr(key, 1, ?) <> ?', [keepPrefix.length, keepPrefix]);
  let n = 0;
  for (const [key, value] of entries) {
    await tx.run('INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)', [
      key,
      JSON.stringify(value),
      now,
    ]);
    n++;
  }
  return n;
}

/** Removes the installation secrets named by `keys`, then stores `values` (if any). */
export async function importSecrets(
  tx: SqlExecutor,
  keys: readonly string[],
  values: Record<string, string> | null,
  now: number,
): Promise<void> {
  for (const key of keys) await tx.run('DELETE FROM installation_secrets WHERE key = ?', [key]);
  if (!values) return;
  for (const [key, value] of Object.entries(values))
    await tx.run('INSERT INTO installation_secrets (key, value, created_at) VALUES (?, ?, ?)', [
      key,
      value,
      now,
    ]);
}
