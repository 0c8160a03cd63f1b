import { connectionOf, type SyncTx } from '../core/database/tx';

/*
 * The settings and installation-secret rows as backup and restore read and write them, on a
 * connection of their own (the backup's snapshot, the restore worker's). Nest-free.
 */

/** Every setting's key and stored JSON text, by key. */
export function exportSettings(tx: SyncTx): { key: string; value: string }[] {
  return connectionOf(tx).prepare('SELECT key, value FROM settings ORDER BY key').all() as {
    key: string;
    value: string;
  }[];
}

/** Replaces every setting whose key does not start with `keepPrefix` by `entries`. */
export function importSettings(
  tx: SyncTx,
  entries: Iterable<[string, unknown]>,
  keepPrefix: string,
  now: number,
): number {
  const db = connectionOf(tx);
  db.prepare('DELETE FROM settings WHERE substr(key, 1, ?) <> ?').run(keepPrefix.length, keepPrefix);
  const insert = db.prepare('INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)');
  let n = 0;
  for (const [key, value] of entries) {
    insert.run(key, JSON.stringify(value), now);
    n++;
  }
  return n;
}

/** Removes the installation secrets named by `keys`, then stores `values` (if any). */
export function importSecrets(
  tx: SyncTx,
  keys: readonly string[],
  values: Record<string, string> | null,
  now: number,
): void {
  const db = connectionOf(tx);
  const remove = db.prepare('DELETE FROM installation_secrets WHERE key = ?');
  for (const key of keys) remove.run(key);
  if (!values) return;
  const insert = db.prepare('INSERT INTO installation_secrets (key, value, created_at) VALUES (?, ?, ?)');
  for (const [key, value] of Object.entries(values)) insert.run(key, value, now);
}
