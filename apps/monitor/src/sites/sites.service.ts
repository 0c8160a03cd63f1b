import { Injectable } from '@nestjs/common';
import type { SiteDeleted, SiteDetail, SiteInput, SiteKind } from '@monitor/contracts';
import { ConflictError, InvalidInputError, NotFoundError } from '@monitor/domain';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { Clock } from '../core/clock/clock';
import { isUniqueViolation, writeAtomically } from '../core/database/write-atomically';
import { EventBus } from '../core/events/event-bus';

interface SiteRow {
  name: string;
  kind: SiteKind;
  lat: number | null;
  lon: number | null;
  sensor_count: number;
  managed_by: string | null;
}

const LIST_SQL = `SELECT s.name, s.kind, s.lat, s.lon, s.managed_by,
    (SELECT count(*) FROM sensors WHERE site_id = s.id) AS sensor_count
  FROM sites s`;

const view = (row: SiteRow): SiteDetail => ({
  name: row.name,
  kind: row.kind,
  lat: row.lat,
  lon: row.lon,
  sensor_count: Number(row.sensor_count),
  managed_by: row.managed_by,
});

/** The kind a request asked for: '' means the default. */
const kindOf = (kind: SiteKind | '' | undefined, fallback: SiteKind): SiteKind =>
  kind === undefined ? fallback : kind === '' ? 'local' : kind;

interface StoredSite {
  id: number;
  name: string;
  kind: SiteKind;
  lat: number | null;
  lon: number | null;
  managed_by: string | null;
}

const sensorIds = (db: Database.Database, siteId: number): number[] =>
  db.prepare('SELECT id FROM sensors WHERE site_id = ? ORDER BY id').pluck().all(siteId) as number[];

/**
 * The coordinates a request sets: both numbers, or both null/absent. `update` also tells whether
 * the request touched them at all (PUT without lat and lon keeps them).
 */
function coordinates(input: SiteInput, partial: boolean): { lat: number | null; lon: number | null } | null {
  const hasLat = input.lat !== undefined;
  const hasLon = input.lon !== undefined;
  if (partial && !hasLat && !hasLon) return null;
  const lat = input.lat ?? null;
  const lon = input.lon ?? null;
  if ((lat === null) !== (lon === null) || (partial && hasLat !== hasLon))
    throw new InvalidInputError(
      partial
        ? 'lat and lon go together: send both numbers, or both null to remove the coordinates'
        : 'lat and lon go together: send both or neither',
    );
  return { lat, lon };
}

/** Named groups of sensors, optionally placed on the map. Sensors refer to a site by its row id. */
@Injectable()
export class SitesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  /** Every site with its sensor count, sorted by name. */
  async list(): Promise<SiteDetail[]> {
    const rows = (await this.dataSource.query(`${LIST_SQL} ORDER BY s.name`)) as SiteRow[];
    return rows.map(view);
  }

  /** The unique index on the name decides between racing creates: one 201, the others 409. */
  async create(input: SiteInput & { name: string }): Promise<SiteDetail> {
    const { lat, lon } = coordinates(input, false) as { lat: number | null; lon: number | null };
    const name = input.name;
    const now = this.clock.now();
    await this.write(name, (db) => {
      db.prepare(
        `INSERT INTO sites (name, kind, lat, lon, sample, managed_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, 0, NULL, ?, ?)`,
      ).run(name, kindOf(input.kind, 'local'), lat, lon, now, now);
    });
    return this.one(name);
  }

  /** Partial update: rename, kind, and lat with lon. A rename shows in every sensor of the site. */
  async update(name: string, input: SiteInput): Promise<SiteDetail> {
    const position = coordinates(input, true);
    const finalName = input.name ?? name;
    const affected = await this.write(finalName, (db) => {
      const site = this.mustFindChangeable(db, name, 'changed');
      const rename = input.name !== undefined && input.name !== site.name;
      db.prepare(`UPDATE sites SET name = ?, kind = ?, lat = ?, lon = ?, updated_at = ? WHERE id = ?`).run(
        input.name ?? site.name,
        kindOf(input.kind, site.kind),
        position ? position.lat : site.lat,
        position ? position.lon : site.lon,
        this.clock.now(),
        site.id,
      );
      return rename ? sensorIds(db, site.id) : [];
    });
    this.announce(affected);
    return this.one(finalName);
  }

  /**
   * Deletes a site. One that still has sensors is refused unless `unassign`, which leaves them
   * without a site in the same transaction.
   */
  async remove(name: string, unassign: boolean): Promise<SiteDeleted> {
    const affected = await this.write(name, (db) => {
      const site = this.mustFindChangeable(db, name, 'deleted');
      const ids = sensorIds(db, site.id);
      if (ids.length > 0 && !unassign) {
        const count = ids.length === 1 ? '1 sensor' : `${ids.length} sensors`;
        throw new ConflictError(
          `site "${site.name}" still has ${count}; delete with unassign=1 to leave them without a site`,
        );
      }
      if (ids.length > 0)
        db.prepare('UPDATE sensors SET site_id = NULL, updated_at = ? WHERE site_id = ?').run(
          this.clock.now(),
          site.id,
        );
      db.prepare('DELETE FROM sites WHERE id = ?').run(site.id);
      return ids;
    });
    this.announce(affected);
    return { deleted: name, unassigned: affected.length > 0 };
  }

  /** Checks and writes in one transaction; a name taken meanwhile is a 409 naming it. */
  private async write<T>(name: string, change: (db: Database.Database) => T): Promise<T> {
    try {
      return await writeAtomically(this.dataSource, change);
    } catch (error) {
      throw isUniqueViolation(error) ? this.duplicate(name) : error;
    }
  }

  private async one(name: string): Promise<SiteDetail> {
    const rows = (await this.dataSource.query(`${LIST_SQL} WHERE s.name = ?`, [name])) as SiteRow[];
    if (rows.length === 0) throw new NotFoundError(`no site named "${name}"`);
    return view(rows[0]);
  }

  private mustFindChangeable(db: Database.Database, name: string, verb: 'changed' | 'deleted'): StoredSite {
    const site = db
      .prepare('SELECT id, name, kind, lat, lon, managed_by FROM sites WHERE name = ?')
      .get(name) as StoredSite | undefined;
    if (!site) throw new NotFoundError(`no site named "${name}"`);
    if (site.managed_by)
      throw new ConflictError(
        `site "${site.name}" is declared in the configuration file and cannot be ${verb} through the API`,
      );
    return site;
  }

  private duplicate(name: string): ConflictError {
    return new ConflictError(`a site named "${name}" already exists`);
  }

  /** Sensors whose site changed: the sensor list cache and the dashboards refetch. */
  private announce(ids: number[]): void {
    for (const id of ids) this.events.emit('sensor', { id, action: 'updated' });
  }
}
