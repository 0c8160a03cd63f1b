import { Injectable } from '@nestjs/common';
import type { SiteKind } from '@monitor/contracts';
import type Database from 'better-sqlite3';
import { DataSource, In, Not } from 'typeorm';
import { anyLike } from '../core/database/like-pattern';
import { sqliteHandle } from '../core/database/sqlite-handle';
import { connectionOf, managerOf, type SyncTx, type Tx } from '../core/database/unit-of-work';
import { SiteEntity } from './site.entity';

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

  /** Every site, sorted by name. */
  async list(): Promise<StoredSite[]> {
    return (await this.dataSource.query(`SELECT ${COLUMNS} FROM sites ORDER BY name`)) as StoredSite[];
  }

  async byName(name: string): Promise<StoredSite | null> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM sites WHERE name = ?`, [
      name,
    ])) as StoredSite[];
    return rows[0] ?? null;
  }

  /** Sites whose name or kind contains the LIKE `pattern`, by name. */
  async search(pattern: string, limit: number): Promise<{ name: string; kind: string }[]> {
    return (await this.dataSource.query(
      `SELECT name, kind FROM sites WHERE ${anyLike(['name', 'kind'])} ORDER BY name, id LIMIT ?`,
      [pattern, pattern, limit],
    )) as { name: string; kind: string }[];
  }

  /** Site names by id. */
  async names(): Promise<Map<number, string>> {
    const rows = (await this.dataSource.query('SELECT id, name FROM sites')) as {
      id: number;
      name: string;
    }[];
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  async nameOf(id: number): Promise<string | null> {
    const rows = (await this.dataSource.query('SELECT name FROM sites WHERE id = ?', [id])) as {
      name: string;
    }[];
    return rows[0]?.name ?? null;
  }

  /** The id of the site of that name, inside a transaction; null when there is none. */
  async idOf(tx: Tx, name: string): Promise<number | null> {
    return (await managerOf(tx).getRepository(SiteEntity).findOneBy({ name }))?.id ?? null;
  }

  findNow(tx: SyncTx, name: string): StoredSite | undefined {
    return connectionOf(tx).prepare(`SELECT ${COLUMNS} FROM sites WHERE name = ?`).get(name) as
      StoredSite | undefined;
  }

  /** Inserts a site created through the API (the unique name index refuses a duplicate). */
  insertNow(tx: SyncTx, site: SiteColumns, now: number, sample = false): void {
    connectionOf(tx)
      .prepare(
        `INSERT INTO sites (name, kind, lat, lon, sample, managed_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, NULL, ?, ?)`,
      )
      .run(site.name, site.kind, site.lat, site.lon, sample ? 1 : 0, now, now);
  }

  updateNow(tx: SyncTx, id: number, site: SiteColumns, now: number): void {
    connectionOf(tx)
      .prepare(`UPDATE sites SET name = ?, kind = ?, lat = ?, lon = ?, updated_at = ? WHERE id = ?`)
      .run(site.name, site.kind, site.lat, site.lon, now, id);
  }

  deleteNow(tx: SyncTx, id: number): void {
    connectionOf(tx).prepare('DELETE FROM sites WHERE id = ?').run(id);
  }

  /** Creates or updates a site the configuration file declares, marked as managed by it; its id. */
  async saveDeclared(tx: Tx, site: SiteColumns, managedBy: string, now: number): Promise<number> {
    const repository = managerOf(tx).getRepository(SiteEntity);
    const row = await repository.findOneBy({ name: site.name });
    const columns = { ...site, managedBy, updatedAt: now };
    const saved = await repository.save(
      row ? Object.assign(row, columns) : { ...columns, sample: false, createdAt: now },
    );
    return saved.id;
  }

  /** Sites the file managed before and no longer declares go back to the API. */
  async releaseDeclared(tx: Tx, managedBy: string, keep: number[]): Promise<void> {
    await managerOf(tx)
      .getRepository(SiteEntity)
      .update({ managedBy, id: Not(In(keep)) }, { managedBy: null });
  }

  /** Takes the write lock before anything is read (see the configuration file's sync). */
  async lockForWrite(tx: Tx): Promise<void> {
    await managerOf(tx).query('UPDATE sites SET id = id WHERE 0');
  }

  countSamples(tx?: SyncTx): number {
    return this.connection(tx).prepare('SELECT count(*) FROM sites WHERE sample = 1').pluck().get() as number;
  }

  /** Deletes sample sites no sensor uses any more; how many went. */
  deleteUnusedSamples(tx: SyncTx, inUse: Set<number>): number {
    const db = connectionOf(tx);
    const ids = (db.prepare('SELECT id FROM sites WHERE sample = 1').pluck().all() as number[]).filter(
      (id) => !inUse.has(id),
    );
    const remove = db.prepare('DELETE FROM sites WHERE id = ?');
    for (const id of ids) remove.run(id);
    return ids.length;
  }

  private connection(tx?: SyncTx): Database.Database {
    return tx ? connectionOf(tx) : sqliteHandle(this.dataSource);
  }
}
