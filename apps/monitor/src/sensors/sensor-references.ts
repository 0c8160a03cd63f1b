import { Injectable } from '@nestjs/common';
import { InvalidInputError } from '@monitor/domain';
import { ChannelsRepository } from '../channels/channels.repository';
import type { SqlExecutor } from '../core/database/unit-of-work';
import { MaintenanceService } from '../maintenance/maintenance.service';
import { SitesRepository } from '../sites/sites.repository';

/**
 * What a sensor refers to in other features: its site (by name in the API, by id when stored), its
 * channels, and the maintenance windows that list it.
 */
@Injectable()
export class SensorReferences {
  constructor(
    private readonly sites: SitesRepository,
    private readonly channels: ChannelsRepository,
    private readonly maintenance: MaintenanceService,
  ) {}

  /** Site names by id. */
  siteNames(): Promise<Map<number, string>> {
    return this.sites.names();
  }

  /** The site's name, "" for none (or one deleted meanwhile). */
  async siteName(siteId: number | null): Promise<string> {
    const name = siteId === null ? null : await this.sites.nameOf(siteId);
    return name ?? '';
  }

  /** The id of the named site ("" for none), or 400 when there is no such site. */
  async siteId(tx: SqlExecutor, site: string): Promise<number | null> {
    if (!site) return null;
    const siteId = await this.sites.idOf(tx, site);
    if (siteId === null) throw new InvalidInputError(`site "${site}" does not exist`);
    return siteId;
  }

  /** 400 unless every channel exists. */
  async checkChannels(tx: SqlExecutor, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const found = await this.channels.countExisting(tx, ids);
    if (found !== ids.length) throw new InvalidInputError('channels names a channel that does not exist');
  }

  /** A sensor was deleted: the maintenance windows that listed it no longer do. */
  sensorDeleted(): Promise<void> {
    return this.maintenance.reload();
  }
}
