import type { SqlExecutor } from '../core/database/sql-client';
import { storedBoolean } from '../core/database/stored-values';

/** A site as backup and restore carry it. */
export interface SiteRecord {
  name: string;
  kind: 'local' | 'external';
  lat: number | null;
  lon: number | null;
  sample: boolean;
}

/*
 * The sites' rows as backup and restore read and write them, in one SQL text for both backends
 * (the backup's snapshot, the restore's transaction). Nest-free.
 */

/** Every site by name, with its id (sensors refer to it by id). */
export async function exportSites(tx: SqlExecutor): Promise<(SiteRecord & { id: number })[]> {
  const rows = await tx.all<Omit<SiteRecord, 'sample'> & { id: number; sample: unknown }>(
    'SELECT id, name, kind, lat, lon, sample FROM sites ORDER BY name, id',
  );
  return rows.map((row) => ({ ...row, sample: storedBoolean(row.sample) }));
}

/**
 * Makes the sites those of `sites`, matched by name (unique): others are deleted, matches updated,
 * the rest inserted. Sites the configuration file declares are left as they are.
 */
export async function importSites(tx: SqlExecutor, sites: SiteRecord[], now: number): Promise<void> {
  const stored = await tx.all<{ id: number; name: string; managed_by: string | null }>(
    'SELECT id, name, managed_by FROM sites',
  );
  const wanted = new Set(sites.map((s) => s.name));
  for (const row of stored)
    if (!wanted.has(row.name) && !row.managed_by) await tx.run('DELETE FROM sites WHERE id = ?', [row.id]);
  const ids = new Map(stored.map((s) => [s.name, s.id]));
  const managed = new Set(stored.filter((s) => s.managed_by).map((s) => s.id));
  for (const site of sites) {
    const id = ids.get(site.name);
    if (id !== undefined) {
      if (!managed.has(id))
        await tx.run('UPDATE sites SET kind = ?, lat = ?, lon = ?, sample = ?, updated_at = ? WHERE id = ?', [
          site.kind,
          site.lat,
          site.lon,
          site.sample,
          now,
          id,
        ]);
    } else
      await tx.run(
        'INSERT INTO sites (name, kind, lat, lon, sample, managed_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)',
        [site.name, site.kind, site.lat, site.lon, site.sample, now, now],
      );
  }
}

/** Site ids by name. */
export async function siteIdsByName(tx: SqlExecutor): Promise<Map<string, number>> {
  const rows = await tx.all<{ id: number; name: string }>('SELECT id, name FROM sites');
  return new Map(rows.map((s) => [s.name, s.id]));
}
