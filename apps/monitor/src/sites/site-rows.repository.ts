import { connectionOf, type SyncTx } from '../core/database/tx';

/** A site as backup and restore carry it. */
export interface SiteRecord {
  name: string;
  kind: 'local' | 'external';
  lat: number | null;
  lon: number | null;
  sample: boolean;
}

/*
 * The sites' rows as backup and restore read and write them, on a connection of their own (the
 * backup's snapshot, the restore worker's). Nest-free.
 */

/** Every site by name, with its id (sensors refer to it by id). */
export function exportSites(tx: SyncTx): (SiteRecord & { id: number })[] {
  const rows = connectionOf(tx)
    .prepare('SELECT id, name, kind, lat, lon, sample FROM sites ORDER BY name, id')
    .all() as (Omit<SiteRecord, 'sample'> & { id: number; sample: number })[];
  return rows.map((row) => ({ ...row, sample: row.sample === 1 }));
}

/**
 * Makes the sites those of `sites`, matched by name (unique): others are deleted, matches updated,
 * the rest inserted. Sites the configuration file declares are left as they are.
 */
export function importSites(tx: SyncTx, sites: SiteRecord[], now: number): void {
  const db = connectionOf(tx);
  const stored = db.prepare('SELECT id, name, managed_by FROM sites').all() as {
    id: number;
    name: string;
    managed_by: string | null;
  }[];
  const wanted = new Set(sites.map((s) => s.name));
  const remove = db.prepare('DELETE FROM sites WHERE id = ?');
  for (const row of stored) if (!wanted.has(row.name) && !row.managed_by) remove.run(row.id);
  const ids = new Map(stored.map((s) => [s.name, s.id]));
  const managed = new Set(stored.filter((s) => s.managed_by).map((s) => s.id));
  const update = db.prepare(
    'UPDATE sites SET kind = ?, lat = ?, lon = ?, sample = ?, updated_at = ? WHERE id = ?',
  );
  const insert = db.prepare(
    'INSERT INTO sites (name, kind, lat, lon, sample, managed_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)',
  );
  for (const site of sites) {
    const id = ids.get(site.name);
    if (id !== undefined) {
      if (!managed.has(id)) update.run(site.kind, site.lat, site.lon, site.sample ? 1 : 0, now, id);
    } else insert.run(site.name, site.kind, site.lat, site.lon, site.sample ? 1 : 0, now, now);
  }
}

/** Site ids by name. */
export function siteIdsByName(tx: SyncTx): Map<string, number> {
  const rows = connectionOf(tx).prepare('SELECT id, name FROM sites').all() as { id: number; name: string }[];
  return new Map(rows.map((s) => [s.name, s.id]));
}
