import { Injectable } from '@nestjs/common';
import type { SiteDeleted, SiteDetail, SiteInput, SiteKind } from '@monitor/contracts';
import { ConflictError, InvalidInputError, NotFoundError } from '@monitor/domain';
import { Clock } from '../core/clock/clock';
import { isUniqueViolationError } from '../core/database/sql-client';
import { UnitOfWork, type SqlExecutor } from '../core/database/unit-of-work';
import { EventBus } from '../core/events/event-bus';
import { SensorsRepository } from '../sensors/sensors.repository';
import { SitesRepository, type StoredSite } from './sites.repository';

const view = (row: StoredSite, sensorCount: number): SiteDetail => ({
  name: row.name,
  kind: row.kind,
  lat: row.lat,
  lon: row.lon,
  sensor_count: sensorCount,
  managed_by: row.managed_by,
});

/** The kind a request asked for: '' means the default. */
const kindOf = (kind: SiteKind | '' | undefined, fallback: SiteKind): SiteKind =>
  kind === undefined ? fallback : kind === '' ? 'local' : kind;

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
    private readonly unit: UnitOfWork,
    private readonly repository: SitesRepository,
    private readonly sensors: SensorsRepository,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  /** Every site with its sensor count, sorted by name. */
  async list(): Promise<SiteDetail[]> {
    const [rows, counts] = await Promise.all([this.repository.list(), this.sensors.countsBySite()]);
    return rows.map((row) => view(row, counts.get(row.id) ?? 0));
  }

  /** The unique index on the name decides between racing creates: one 201, the others 409. */
  async create(input: SiteInput & { name: string }): Promise<SiteDetail> {
    const { lat, lon } = coordinates(input, false) as { lat: number | null; lon: number | null };
    const name = input.name;
    const now = this.clock.now();
    await this.write(name, async (tx) => {
      await this.repository.insert(tx, { name, kind: kindOf(input.kind, 'local'), lat, lon }, now);
    });
    return this.one(name);
  }

  /** Partial update: rename, kind, and lat with lon. A rename shows in every sensor of the site. */
  async update(name: string, input: SiteInput): Promise<SiteDetail> {
    const position = coordinates(input, true);
    const finalName = input.name ?? name;
    const affected = await this.write(finalName, async (tx) => {
      const site = await this.mustFindChangeable(tx, name, 'changed');
      const rename = input.name !== undefined && input.name !== site.name;
      await this.repository.update(
        tx,
        site.id,
        {
          name: input.name ?? site.name,
          kind: kindOf(input.kind, site.kind),
          lat: position ? position.lat : site.lat,
          lon: position ? position.lon : site.lon,
        },
        this.clock.now(),
      );
      return rename ? await this.sensors.idsOfSite(tx, site.id) : [];
    });
    this.announce(affected);
    return this.one(finalName);
  }

  /**
   * Deletes a site. One that still has sensors is refused unless `unassign`, which leaves them
   * without a site in the same transaction.
   */
  async remove(name: string, unassign: boolean): Promise<SiteDeleted> {
    const affected = await this.write(name, async (tx) => {
      const site = await this.mustFindChangeable(tx, name, 'deleted');
      const ids = await this.sensors.idsOfSite(tx, site.id);
      if (ids.length > 0 && !unassign) {
        const count = ids.length === 1 ? '1 sensor' : `${ids.length} sensors`;
        throw new ConflictError(
          `site "${site.name}" still has ${count}; delete with unassign=1 to leave them without a site`,
        );
      }
      if (ids.length > 0) await this.sensors.unassignSite(tx, site.id, this.clock.now());
      await this.repository.delete(tx, site.id);
      return ids;
    });
    this.announce(affected);
    return { deleted: name, unassigned: affected.length > 0 };
  }

  /** Checks and writes in one transaction; a name taken meanwhile is a 409 naming it. */
  private async write<T>(name: string, change: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    try {
      return await this.unit.atomically(change);
    } catch (error) {
      throw isUniqueViolationError(error) ? this.duplicate(name) : error;
    }
  }

  private async one(name: string): Promise<SiteDetail> {
    const row = await this.repository.byName(name);
    if (!row) throw new NotFoundError(`no site named "${name}"`);
    return view(row, (await this.sensors.countsBySite()).get(row.id) ?? 0);
  }

  private async mustFindChangeable(
    tx: SqlExecutor,
    name: string,
    verb: 'changed' | 'deleted',
  ): Promise<StoredSite> {
    const site = await this.repository.find(tx, name);
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
