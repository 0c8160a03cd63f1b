import type { SqlExecutor } from '../core/database/sql-client';
import { parseJsonOr, storedBoolean } from '../core/database/stored-values';

/** A channel's definition as backup and restore carry it. */
export interface ChannelRecord {
  name: string;
  type: string;
  config: Record<string, unknown>;
  enabled: boolean;
  title_template: string;
  body_template: string;
}

/** A stored channel as a restore matches it: by name in id order; the file's own are kept. */
export interface StoredChannelName {
  id: number;
  name: string;
  managed_by: string | null;
}

/*
 * The channels' rows as backup and restore read and write them, in one SQL text for both
 * backends (the backup's snapshot, the restore's transaction). Nest-free.
 */

/** Every channel in id order. */
export async function exportChannels(tx: SqlExecutor): Promise<(ChannelRecord & { id: number })[]> {
  const rows = await tx.all<
    Omit<ChannelRecord, 'config' | 'enabled'> & { id: number; config: string; enabled: unknown }
  >('SELECT id, name, type, config, enabled, title_template, body_template FROM channels ORDER BY id');
  return rows.map((c) => ({ ...c, config: parseJsonOr(c.config, {}), enabled: storedBoolean(c.enabled) }));
}

export function storedChannelNames(tx: SqlExecutor): Promise<StoredChannelName[]> {
  return tx.all<StoredChannelName>('SELECT id, name, managed_by FROM channels ORDER BY id');
}

/** Deletes a channel; its sensors' links to it go with it. */
export async function deleteChannel(tx: SqlExecutor, id: number): Promise<void> {
  await tx.run('DELETE FROM channels WHERE id = ?', [id]);
}

export async function updateChannel(
  tx: SqlExecutor,
  id: number,
  c: ChannelRecord,
  now: number,
): Promise<void> {
  await tx.run(
    `UPDATE channels SET type = ?, config = ?, enabled = ?, title_template = ?, body_template = ?, updated_at = ?
     WHERE id = ?`,
    [c.type, JSON.stringify(c.config), c.enabled, c.title_template, c.body_template, now, id],
  );
}

/** Inserts a channel (no delivery error yet); its id. */
export async function insertChannel(tx: SqlExecutor, c: ChannelRecord, now: number): Promise<number> {
  const row = await tx.get<{ id: number }>(
    `INSERT INTO channels (name, type, config, enabled, title_template, body_template, last_error, last_error_at,
       managed_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, '', NULL, NULL, ?, ?) RETURNING id`,
    [c.name, c.type, JSON.stringify(c.config), c.enabled, c.title_template, c.body_template, now, now],
  );
  return Number(row!.id);
}
