import { Injectable } from '@nestjs/common';
import type { SiteDeleted, SiteDetail, SiteInput, SiteKind } from '@monitor/contracts';
import { ConflictError, InvalidInputError, NotFoundError } from '@monitor/domain';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../core/clock/clock';
import { EventBus } from '../core/events/event-bus';
import { SensorEntity } from '../sensors/sensor.entity';
import { SiteEntity } from './site.entity';

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

const isUniqueViolation = (error: unknown): boolean =>
  /UNIQUE constraint failed: sites\.name/.test((error as Error).message ?? '');

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

  async create(input: SiteInput & { name: string }): Promise<SiteDetail> {
    const { lat, lon } = coordinates(input, false) as { lat: number | null; lon: number | null };
    const name = input.name;
    const now = this.clock.now();
    try {
      await this.dataSource.transaction(async (manager) => {
        await this.mustBeFree(manager, name);
        await manager.getRepository(SiteEntity).insert({
          name,
          kind: kindOf(input.kind, 'local'),
          lat,
          lon,
          sample: false,
          managedBy: null,
          createdAt: now,
          updatedAt: now,
        });
      });
    } catch (error) {
      throw isUniqueViolation(error) ? this.duplicate(name) : error;
    }
    return this.one(name);
  }

  /** Partial update: rename, kind, and lat with lon. A rename shows in every sensor of the site. */
  async update(name: string, input: SiteInput): Promise<SiteDetail> {
    const position = coordinates(input, true);
    let finalName = name;
    let affected: number[] = [];
    try {
      await this.dataSource.transaction(async (manager) => {
        const site = await this.mustFindChangeable(manager, name, 'changed');
        const rename = input.name !== undefined && input.name !== site.name;
        if (rename) await this.mustBeFree(manager, input.name as string);
        finalName = input.name ?? site.name;
        await manager.getRepository(SiteEntity).update(
          { id: site.id },
          {
            name: finalName,
            kind: kindOf(input.kind, site.kind),
            ...(position ?? {}),
            updatedAt: this.clock.now(),
          },
        );
        if (rename) affected = await this.sensorIds(manager, site.id);
      });
    } catch (error) {
      throw isUniqueViolation(error) ? this.duplicate(finalName) : error;
    }
    this.announce(affected);
    return this.one(finalName);
  }

  /**
   * Deletes a site. One that still has sensors is refused unless `unassign`, which leaves them
   * without a site in the same transaction.
   */
  async remove(name: string, unassign: boolean): Promise<SiteDeleted> {
    const affected = await this.dataSource.transaction(async (manager) => {
      const site = await this.mustFindChangeable(manager, name, 'deleted');
      const ids = await this.sensorIds(manager, site.id);
      if (ids.length > 0 && !unassign) {
        const count = ids.length === 1 ? '1 sensor' : `${ids.length} sensors`;
        throw new ConflictError(
          `site "${site.name}" still has ${count}; delete with unassign=1 to leave them without a site`,
        );
      }
      if (ids.length > 0) {
        await manager
          .getRepository(SensorEntity)
          .update({ siteId: site.id }, { siteId: null, updatedAt: this.clock.now() });
      }
      await manager.getRepository(SiteEntity).delete({ id: site.id });
      return ids;
    });
    this.announce(affected);
    return { deleted: name, unassigned: affected.length > 0 };
  }

  private async one(name: string): Promise<SiteDetail> {
    const rows = (await this.dataSource.query(`${LIST_SQL} WHERE s.name = ?`, [name])) as SiteRow[];
    if (rows.length === 0) throw new NotFoundError(`no site named "${name}"`);
    return view(rows[0]);
  }

  private async mustFindChangeable(
    manager: EntityManager,
    name: string,
    verb: 'changed' | 'deleted',
  ): Promise<SiteEntity> {
    const site = await manager.getRepository(SiteEntity).findOneBy({ name });
    if (!site) throw new NotFoundError(`no site named "${name}"`);
    if (site.managedBy)
      throw new ConflictError(
        `site "${site.name}" is declared in the configuration file and cannot be ${verb} through the API`,
      );
    return site;
  }

  private async mustBeFree(manager: EntityManager, name: string): Promise<void> {
    if (await manager.getRepository(SiteEntity).existsBy({ name })) throw this.duplicate(name);
  }

  private duplicate(name: string): ConflictError {
    return new ConflictError(`a site named "${name}" already exists`);
  }

  private async sensorIds(manager: EntityManager, siteId: number): Promise<number[]> {
    const rows = (await manager.query('SELECT id FROM sensors WHERE site_id = ? ORDER BY id', [siteId])) as {
      id: number;
    }[];
    return rows.map((r) => r.id);
  }

  /** Sensors whose site changed: the sensor list cache and the dashboards refetch. */
  private announce(ids: number[]): void {
    for (const id of ids) this.events.emit('sensor', { id, action: 'updated' });
  }
}
