import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { InvalidInputError } from '@monitor/domain';
import { ProbeCatalogue } from '@monitor/probes';
import { ChannelsRepository } from '../channels/channels.repository';
import { ChannelsService, channelColumns } from '../channels/channels.service';
import { ClusterLocks } from '../cluster/cluster-locks.service';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { UnitOfWork, type SqlExecutor } from '../core/database/unit-of-work';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { StartupError } from '../core/process/startup-error';
import { MaintenanceRepository } from '../maintenance/maintenance.repository';
import { MaintenanceService } from '../maintenance/maintenance.service';
import {
  draftColumns,
  LIFTED_CREDENTIALS_MESSAGE,
  mergeDraft,
  withTargetCredentialsLifted,
} from '../sensors/sensor-input';
import { SensorsRepository } from '../sensors/sensors.repository';
import { SitesRepository } from '../sites/sites.repository';
import { StatusPagesService } from '../status-pages/status-pages.service';

/** The marker on rows the configuration file declares; the API answers 409 to changing them. */
export const MANAGED_BY_FILE = 'config';

/**
 * Applies the sites, channels, sensors, maintenance windows and status pages (by slug) declared in
 * the configuration file at start, before runtime state is rebuilt: matched by name, created or
 * updated, marked as managed by the file, in one transaction. A row the file managed before but no longer declares is
 * released to the API rather than deleted. An invalid declaration stops start-up with one line.
 */
@Injectable()
export class DeclaredConfigSync implements OnModuleInit {
  constructor(
    private readonly unit: UnitOfWork,
    private readonly siteRows: SitesRepository,
    private readonly channelRows: ChannelsRepository,
    private readonly sensorRows: SensorsRepository,
    private readonly windowRows: MaintenanceRepository,
    private readonly probes: ProbeCatalogue,
    private readonly channels: ChannelsService,
    private readonly maintenance: MaintenanceService,
    private readonly statusPages: StatusPagesService,
    private readonly clock: Clock,
    private readonly locks: ClusterLocks,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    const { sites, channels, sensors, maintenance, status_pages: pages } = this.config;
    // One instance at a time, and serialised with every other writer: another process applying
    // the same file waits for this one and then finds its rows, instead of reading a state this one
    // is about to change.
    const pageChanges = await this.locks.exclusive('declared-configuration', () =>
      this.unit.atomically(async (m) => {
        const siteIds = await this.applySites(m);
        const channelIds = await this.applyChannels(m);
        const sensorIds = await this.applySensors(m, siteIds, channelIds);
        await this.applyWindows(m, sensorIds);
        // Sections name sensors the file declares (checked when the file was read).
        const resolved = pages.map((page) => ({
          ...page,
          sections: page.sections.map((s) => ({
            title: s.title,
            sensors: s.sensors.map((n) => sensorIds.get(n)!),
          })),
        }));
        return this.statusPages.applyDeclared(m, resolved, MANAGED_BY_FILE);
      }),
    );
    await this.maintenance.reload();
    this.statusPages.announceChanges(pageChanges);
    const declared = sites.length + channels.length + sensors.length + maintenance.length + pages.length;
    if (declared > 0)
      this.logger.info(
        {
          sites: sites.length,
          channels: channels.length,
          sensors: sensors.length,
          maintenance: maintenance.length,
          status_pages: pages.length,
        },
        'configuration file applied',
      );
  }

  private async applySites(m: SqlExecutor): Promise<Map<string, number>> {
    const now = this.clock.now();
    const ids = new Map<string, number>();
    for (const site of this.config.sites) {
      const columns = { name: site.name, kind: site.kind, lat: site.lat, lon: site.lon };
      ids.set(site.name, await this.siteRows.saveDeclared(m, columns, MANAGED_BY_FILE, now));
    }
    await this.siteRows.releaseDeclared(m, MANAGED_BY_FILE, [...ids.values()]);
    return ids;
  }

  private async applyChannels(m: SqlExecutor): Promise<Map<string, number>> {
    const now = this.clock.now();
    const ids = new Map<string, number>();
    for (const channel of this.config.channels) {
      const { draft } = declared('channels', channel.name, () => this.channels.checkedDraft(channel));
      ids.set(
        channel.name,
        await this.channelRows.saveDeclared(m, channelColumns(draft), MANAGED_BY_FILE, now),
      );
    }
    await this.channelRows.releaseDeclared(m, MANAGED_BY_FILE, [...ids.values()]);
    return ids;
  }

  private async applySensors(
    m: SqlExecutor,
    siteIds: Map<string, number>,
    channelIds: Map<string, number>,
  ): Promise<Map<string, number>> {
    const now = this.clock.now();
    const ids = new Map<string, number>();
    for (const declaredSensor of this.config.sensors) {
      // The file is the operator's to edit: converted here at every start, and the line says so.
      const lifted = withTargetCredentialsLifted(declaredSensor);
      if (lifted)
        this.logger.warn(
          { sensor: declaredSensor.name },
          `configuration file: ${LIFTED_CREDENTIALS_MESSAGE}; write them there in the file`,
        );
      const sensor = lifted ?? declaredSensor;
      // Checked like an API create; site and channels are resolved by name below.
      const draft = declared('sensors', sensor.name, () =>
        mergeDraft(null, { ...sensor, site: '', channels: [] }, this.probes, 'given'),
      );
      const row = await this.sensorRows.findDeclared(m, sensor.name, MANAGED_BY_FILE);
      // A push token the file leaves out is generated once and kept across starts.
      if (draft.type === 'push' && sensor.options.token === undefined && row?.type === 'push') {
        const kept = row.options.token;
        if (typeof kept === 'string') draft.options.token = kept;
      }
      // The file declares no parent, so a parent set through the API is cleared: the file wins.
      const siteId = sensor.site ? (siteIds.get(sensor.site) ?? null) : null;
      const columns = draftColumns(draft, siteId);
      const saved = row
        ? await this.sensorRows.update(m, row, { ...columns, managedBy: MANAGED_BY_FILE }, now)
        : await this.sensorRows.insert(m, columns, MANAGED_BY_FILE, now);
      const links = [...new Set(sensor.channels)].map((name) => channelIds.get(name)!);
      await this.sensorRows.replaceChannels(m, saved.id, links);
      ids.set(sensor.name, saved.id);
    }
    await this.sensorRows.releaseDeclared(m, MANAGED_BY_FILE, [...ids.values()]);
    return ids;
  }

  private async applyWindows(m: SqlExecutor, sensorIds: Map<string, number>): Promise<void> {
    const ids: number[] = [];
    for (const window of this.config.maintenance) {
      const startsAt = Date.parse(window.starts_at);
      const endsAt = Date.parse(window.ends_at);
      if (!(startsAt < endsAt))
        throw new StartupError(
          `configuration file: maintenance "${window.name}": starts_at must be before ends_at`,
        );
      const sensors = [...new Set(window.sensors)].map((name) => sensorIds.get(name)!);
      const columns = { name: window.name, startsAt, endsAt, sensorIds: sensors };
      ids.push(await this.windowRows.saveDeclared(m, columns, MANAGED_BY_FILE, this.clock.now()));
    }
    await this.windowRows.releaseDeclared(m, MANAGED_BY_FILE, ids);
  }
}

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
