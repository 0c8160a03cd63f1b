import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { InvalidInputError } from '@monitor/domain';
import { ProbeCatalogue } from '@monitor/probes';
import { DataSource, EntityManager, In, Not } from 'typeorm';
import { ChannelEntity } from '../channels/channel.entity';
import { ChannelsService, channelColumns } from '../channels/channels.service';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { StartupError } from '../core/process/startup-error';
import {
  MaintenanceWindowEntity,
  MaintenanceWindowSensorEntity,
} from '../maintenance/maintenance-window.entity';
import { MaintenanceService } from '../maintenance/maintenance.service';
import { draftColumns, mergeDraft } from '../sensors/sensor-input';
import { SensorChannelEntity } from '../sensors/sensor-channel.entity';
import { SensorEntity } from '../sensors/sensor.entity';
import { SiteEntity } from '../sites/site.entity';

/** The marker on rows the configuration file declares; the API answers 409 to changing them. */
export const MANAGED_BY_FILE = 'config';

/**
 * Applies the sites, channels, sensors and maintenance windows declared in the configuration file
 * at start, before runtime state is rebuilt: matched by name, created or updated, marked as managed
 * by the file, in one transaction. A row the file managed before but no longer declares is
 * released to the API rather than deleted. An invalid declaration stops start-up with one line.
 */
@Injectable()
export class DeclaredConfigSync implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly probes: ProbeCatalogue,
    private readonly channels: ChannelsService,
    private readonly maintenance: MaintenanceService,
    private readonly clock: Clock,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    const { sites, channels, sensors, maintenance } = this.config;
    await this.dataSource.transaction(async (m) => {
      // Take the write lock before reading: another process applying the same file waits for this
      // one and then finds its rows, instead of reading a state this one is about to change.
      await m.query('UPDATE sites SET id = id WHERE 0');
      const siteIds = await this.applySites(m);
      const channelIds = await this.applyChannels(m);
      const sensorIds = await this.applySensors(m, siteIds, channelIds);
      await this.applyWindows(m, sensorIds);
    });
    await this.maintenance.reload();
    const declared = sites.length + channels.length + sensors.length + maintenance.length;
    if (declared > 0)
      this.logger.info(
        {
          sites: sites.length,
          channels: channels.length,
          sensors: sensors.length,
          maintenance: maintenance.length,
        },
        'configuration file applied',
      );
  }

  private async applySites(m: EntityManager): Promise<Map<string, number>> {
    const now = this.clock.now();
    const ids = new Map<string, number>();
    for (const site of this.config.sites) {
      const row = await first(m, SiteEntity, site.name);
      const columns = {
        name: site.name,
        kind: site.kind,
        lat: site.lat,
        lon: site.lon,
        managedBy: MANAGED_BY_FILE,
        updatedAt: now,
      };
      const saved = await m
        .getRepository(SiteEntity)
        .save(row ? Object.assign(row, columns) : { ...columns, sample: false, createdAt: now });
      ids.set(site.name, saved.id);
    }
    await release(m, SiteEntity, [...ids.values()]);
    return ids;
  }

  private async applyChannels(m: EntityManager): Promise<Map<string, number>> {
    const now = this.clock.now();
    const ids = new Map<string, number>();
    for (const channel of this.config.channels) {
      const { draft } = declared('channels', channel.name, () => this.channels.checkedDraft(channel));
      const row = await first(m, ChannelEntity, channel.name);
      const columns = { ...channelColumns(draft), managedBy: MANAGED_BY_FILE, updatedAt: now };
      const saved = await m
        .getRepository(ChannelEntity)
        .save(
          row
            ? Object.assign(row, columns)
            : { ...columns, lastError: '', lastErrorAt: null, createdAt: now },
        );
      ids.set(channel.name, saved.id);
    }
    await release(m, ChannelEntity, [...ids.values()]);
    return ids;
  }

  private async applySensors(
    m: EntityManager,
    siteIds: Map<string, number>,
    channelIds: Map<string, number>,
  ): Promise<Map<string, number>> {
    const now = this.clock.now();
    const ids = new Map<string, number>();
    for (const sensor of this.config.sensors) {
      // Checked like an API create; site and channels are resolved by name below.
      const draft = declared('sensors', sensor.name, () =>
        mergeDraft(null, { ...sensor, site: '', channels: [] }, this.probes),
      );
      const row = await first(m, SensorEntity, sensor.name);
      // The file declares no parent, so a parent set through the API is cleared: the file wins.
      const siteId = sensor.site ? (siteIds.get(sensor.site) ?? null) : null;
      const columns = { ...draftColumns(draft, siteId), managedBy: MANAGED_BY_FILE, updatedAt: now };
      const repo = m.getRepository(SensorEntity);
      const saved = row
        ? await repo.save(Object.assign(row, columns))
        : await repo.save({
            ...columns,
            sortOrder: ((await repo.maximum('sortOrder')) ?? 0) + 1,
            sample: false,
            status: draft.enabled ? 'unknown' : 'paused',
            message: '',
            streak: 0,
            createdAt: now,
          });
      await m.getRepository(SensorChannelEntity).delete({ sensorId: saved.id });
      const links = [...new Set(sensor.channels)].map((name) => ({
        sensorId: saved.id,
        channelId: channelIds.get(name)!,
      }));
      if (links.length > 0) await m.getRepository(SensorChannelEntity).insert(links);
      ids.set(sensor.name, saved.id);
    }
    await release(m, SensorEntity, [...ids.values()]);
    return ids;
  }

  private async applyWindows(m: EntityManager, sensorIds: Map<string, number>): Promise<void> {
    const ids: number[] = [];
    for (const window of this.config.maintenance) {
      const startsAt = Date.parse(window.starts_at);
      const endsAt = Date.parse(window.ends_at);
      if (!(startsAt < endsAt))
        throw new StartupError(
          `configuration file: maintenance "${window.name}": starts_at must be before ends_at`,
        );
      const row = await first(m, MaintenanceWindowEntity, window.name);
      const columns = {
        name: window.name,
        startsAt,
        endsAt,
        allSensors: window.sensors.length === 0,
        managedBy: MANAGED_BY_FILE,
      };
      const saved = await m
        .getRepository(MaintenanceWindowEntity)
        .save(row ? Object.assign(row, columns) : { ...columns, createdAt: this.clock.now() });
      await m.getRepository(MaintenanceWindowSensorEntity).delete({ windowId: saved.id });
      const links = [...new Set(window.sensors)].map((name) => ({
        windowId: saved.id,
        sensorId: sensorIds.get(name)!,
      }));
      if (links.length > 0) await m.getRepository(MaintenanceWindowSensorEntity).insert(links);
      ids.push(saved.id);
    }
    await release(m, MaintenanceWindowEntity, ids);
  }
}

type NamedEntity =
  typeof SiteEntity | typeof ChannelEntity | typeof SensorEntity | typeof MaintenanceWindowEntity;

/**
 * The row of that name the file already manages (a partial unique index allows one), else the
 * oldest: names need not be unique, and the file adopts the first.
 */
const first = async <E extends NamedEntity>(m: EntityManager, entity: E, name: string) => {
  const repository = m.getRepository(entity as typeof SiteEntity);
  return ((await repository.findOne({ where: { name, managedBy: MANAGED_BY_FILE } })) ??
    (await repository.findOne({ where: { name }, order: { id: 'ASC' } }))) as InstanceType<E> | null;
};

/** Rows the file managed before and no longer declares go back to the API. */
const release = async (m: EntityManager, entity: NamedEntity, keep: number[]): Promise<void> => {
  await m
    .getRepository(entity as typeof SiteEntity)
    .update({ managedBy: MANAGED_BY_FILE, id: Not(In(keep)) }, { managedBy: null });
};

/** A declaration the API would refuse stops start-up, naming it. */
function declared<T>(section: string, name: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidInputError)
      throw new StartupError(`configuration file: ${section} "${name}": ${error.message}`);
    throw error;
  }
}
