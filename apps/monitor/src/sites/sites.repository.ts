import { Injectable } from '@nestjs/common';
import type { SiteKind } from '@monitor/contracts';
import { DataSource } from 'typeorm';
import { anyLikeFragment, sqlClientFor, type SqlClient, type SqlExecutor } from '../core/database/sql-client';
import { releaseManagedRows } from '../core/database/where-in';

/** A stored site as the API and the other features see it. */
export interface StoredSite {
  id: number;
  name: string;
  kind: SiteKind;
  lat: number | null;
  lon: number | null;
  managed_by: string | null;
}

/** What the API, the configuration file and sample data set on a site. */
export interface SiteColumns {
  name: string;
  kind: SiteKind;
  lat: number | null;
  lon: number | null;
}

const COLUMNS = 'id, name, kind, lat, lon, managed_by';

/** The only code that reads or writes the `sites` table. */
@Injectable()
export class SitesRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  /** Every site, sorted by name. */
  list(): Promise<StoredSite[]> {
    return this.sql.all<StoredSite>(`SELECT ${COLUMNS} FROM sites ORDER BY name`);
  }

  async byName(name: string): Promise<StoredSite | null> {
    return (await this.find(this.sql, name)) ?? null;
  }

  /** Sites whose name or kind contains the LIKE `pattern`, by name. */
  search(pattern: string, limit: number): Promise<{ name: string; kind: string }[]> {
    return this.sql.all(
      `SELECT name, kind FROM sites WHERE ${anyLikeFragment(this.sql.dialect, ['name', 'kind'])} ORDER BY name, id LIMIT ?`,
      [pattern, pattern, limit],
    );
  }

  /** Site names by id. */
  async names(): Promise<Map<number, string>> {
    const rows = await this.sql.all<{ id: number; name: string }>('SELECT id, name FROM sites');
    return new Map(rows.map((r) => [Number(r.id), r.name]));
  }

  async nameOf(id: number): Promise<string | null> {
    return (await this.sql.get<{ name: string }>('SELECT name FROM sites WHERE id = ?', [id]))?.name ?? null;
  }

  /** The id of the site of that name, inside a transaction; null when there is none. */
  async idOf(tx: SqlExecutor, name: string): Promise<number | null> {
    const row = await tx.get<{ id: number }>('SELECT id FROM sites WHERE name = ?', [name]);
    return row ? Number(row.id) : null;
  }

  find(tx: SqlExecutor, name: string): Promise<StoredSite | undefined> {
    return tx.get<StoredSite>(`SELECT ${COLUMNS} FROM sites WHERE name = ?`, [name]);
  }

  /** Inserts a site created through the API (the unique name index refuses a duplicate). */
  async insert(tx: SqlExecutor, site: SiteColumns, now: number, sample = false): Promise<void> {
    await tx.run(
      `INSERT INTO sites (name, kind, lat, lon, sample, managed_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, NULL, ?, ?)`,
      [site.name, site.kind, site.lat, site.lon, sample, now, now],
    );
  }

  async update(tx: SqlExecutor, id: number, site: SiteColumns, now: number): Promise<void> {
    await tx.run(`UPDATE sites SET name = ?, kind = ?, lat = ?, lon = ?, updated_at = ? WHERE id = ?`, [
      site.name,
      site.kind,
      site.lat,
      site.lon,
      now,
      id,
    ]);
  }

  async delete(tx: SqlExecutor, id: number): Promise<void> {
    await tx.run('DELETE FROM sites WHERE id = ?', [id]);
  }

  /** Creates or updates a site the configuration file declares, marked as managed by it; its id. */
  async saveDeclared(tx: SqlExecutor, site: SiteColumns, managedBy: string, now: number): Promise<number> {
    const row = await tx.get<{ id: number }>(
      `INSERT INTO sites (name, kind, lat, lon, sample, managed_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, lat = excluded.lat, lon = excluded.lon,
         managed_by = excluded.managed_by, updated_at = excluded.updated_at
       RETURNING id`,
      [site.name, site.kind, site.lat, site.lon, false, managedBy, now, now],
    );
    return Number(row!.id);
  }

  /** Sites the file managed before and no longer declares go back to the API. */
  releaseDeclared(tx: SqlExecutor, managedBy: string, keep: number[]): Promise<void> {
    return releaseManagedRows(tx, 'sites', managedBy, keep);
  }

  async countSamples(tx: SqlExecutor = this.sql): Promise<number> {
    const row = await tx.get<{ n: number }>('SELECT count(*) AS n FROM sites WHERE sample = ?', [true]);
    return Number(row?.n ?? 0);
  }

  /** Deletes sample sites no sensor uses any more; how many went. */
  async deleteUnusedSamples(tx: SqlExecutor, inUse: Set<number>): Promise<number> {
    const rows = await tx.all<{ id: number }>('SELECT id FROM sites WHERE sample = ?', [true]);
    const ids = rows.map((r) => Number(r.id)).filter((id) => !inUse.has(id));
    for (const id of ids) await tx.run('DELETE FROM sites WHERE id = ?', [id]);
    return ids.length;
  }
}
