import { connectionOf, type SyncTx } from '../core/database/tx';

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
 * The channels' rows as backup and restore read and write them, on a connection of their own
 * (the backup's snapshot, the restore worker's). Nest-free.
 */

const parseOr = <T>(text: string, fallback: T): T => {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

/** Every channel in id order. */
export function exportChannels(tx: SyncTx): (ChannelRecord & { id: number })[] {
  const rows = connectionOf(tx)
    .prepare(
      'SELECT id, name, type, config, enabled, title_template, body_template FROM channels ORDER BY id',
    )
    .all() as (Omit<ChannelRecord, 'config' | 'enabled'> & { id: number; config: string; enabled: number })[];
  return rows.map((c) => ({ ...c, config: parseOr(c.config, {}), enabled: c.enabled === 1 }));
}

export function storedChannelNames(tx: SyncTx): StoredChannelName[] {
  return connectionOf(tx)
    .prepare('SELECT id, name, managed_by FROM channels ORDER BY id')
    .all() as StoredChannelName[];
}

/** Deletes a channel; its sensors' links to it go with it. */
export function deleteChannel(tx: SyncTx, id: number): void {
  connectionOf(tx).prepare('DELETE FROM channels WHERE id = ?').run(id);
}

export function updateChannel(tx: SyncTx, id: number, c: ChannelRecord, now: number): void {
  connectionOf(tx)
    .prepare(
      `UPDATE channels SET type = ?, config = ?, enabled = ?, title_template = ?, body_template = ?, updated_at = ?
       WHERE id = ?`,
    )
    .run(c.type, JSON.stringify(c.config), c.enabled ? 1 : 0, c.title_template, c.body_template, now, id);
}

/** Inserts a channel (no delivery error yet); its id. */
export function insertChannel(tx: SyncTx, c: ChannelRecord, now: number): number {
  const run = connectionOf(tx)
    .prepare(
      `INSERT INTO channels (name, type, config, enabled, title_template, body_template, last_error, last_error_at,
         managed_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, '', NULL, NULL, ?, ?)`,
    )
    .run(
      c.name,
      c.type,
      JSON.stringify(c.config),
      c.enabled ? 1 : 0,
      c.title_template,
      c.body_template,
      now,
      now,
    );
  return Number(run.lastInsertRowid);
}
