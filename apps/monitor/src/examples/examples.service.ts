import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { ExampleCounts } from '@monitor/contracts';
import { alignDown, ConflictError, DAY_MS, HOUR_MS } from '@monitor/domain';
import { ProbeCatalogue } from '@monitor/probes';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { UnitOfWork, type SyncTx } from '../core/database/unit-of-work';
import { EventBus } from '../core/events/event-bus';
import { HistoryRepository } from '../history/history.repository';
import { RollupMaintenance } from '../history/rollup-maintenance.service';
import { IncidentsRepository } from '../incidents/incidents.repository';
import { SchedulerService } from '../scheduler/scheduler.service';
import { mergeDraft } from '../sensors/sensor-input';
import {
  deleteSampleSensors,
  insertSampleSensor,
  sampleSensorIds,
  sensorIdByName,
  siteIdsInUse,
} from '../sensors/sensor-rows.repository';
import { SitesRepository } from '../sites/sites.repository';
import { SAMPLE_DAYS, SAMPLE_SENSORS, SAMPLE_SITES } from './sample-dataset';
import { inventHistory } from './sample-history';

/** Failures in a row that make an invented outage an incident (the sample sensors' retries). */
const SAMPLE_RETRIES = 2;

/**
 * Sample data: load a small installation with a week of invented history (rollups included),
 * count it, and remove it again. Rows it creates carry `sample = 1`; removal touches only those
 * sensors and the sample sites they leave empty. Names already present are left alone.
 */
@Injectable()
export class ExamplesService {
  constructor(
    private readonly unit: UnitOfWork,
    private readonly sites: SitesRepository,
    private readonly history: HistoryRepository,
    private readonly incidents: IncidentsRepository,
    private readonly catalogue: ProbeCatalogue,
    private readonly scheduler: SchedulerService,
    private readonly rollups: RollupMaintenance,
    private readonly events: EventBus,
    private readonly clock: Clock,
    private readonly http: HttpAdapterHost,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
  ) {}

  /** What sample data is stored now (read in one transaction, so the counts agree). */
  counts(): ExampleCounts {
    return this.unit.now((tx) => this.countIn(tx));
  }

  private countIn(tx: SyncTx): ExampleCounts {
    const ids = sampleSensorIds(tx);
    return {
      sensors: ids.length,
      results: this.history.countResultsOf(tx, ids),
      incidents: this.incidents.countOf(tx, ids),
      sites: this.sites.countSamples(tx),
    };
  }

  async load(): Promise<ExampleCounts> {
    const declared = this.config.sensors.length + this.config.sites.length + this.config.channels.length;
    if (declared > 0)
      throw new ConflictError('this installation is configured from a file: sample data cannot be loaded');
    // The totals are read in the same transaction: a load or removal racing this one cannot skew them.
    const { created, totals } = await this.unit.atomically((tx) => ({
      created: this.insert(tx),
      totals: this.countIn(tx),
    }));
    for (const id of created) {
      await this.scheduler.reconcile(id);
      this.events.emit('sensor', { id, action: 'created' });
    }
    return totals;
  }

  /** Removes sample rows; what went is counted in the same transaction that removes it. */
  async remove(): Promise<ExampleCounts> {
    const { ids, gone } = await this.unit.atomically((tx) => {
      const before = this.countIn(tx);
      const ids = sampleSensorIds(tx);
      deleteSampleSensors(tx);
      const sites = this.sites.deleteUnusedSamples(tx, siteIdsInUse(tx));
      return { ids, gone: { ...before, sites } };
    });
    for (const id of ids) {
      await this.scheduler.reconcile(id);
      this.events.emit('sensor', { id, action: 'deleted' });
    }
    return gone;
  }

  /** Sites, sensors, their invented results and incidents, and the rollups; inside `tx`. */
  private insert(tx: SyncTx): number[] {
    const now = this.clock.now();
    const from = now - SAMPLE_DAYS * DAY_MS;
    const self = this.selfAddress();
    const marks = this.rollups.watermarks();
    for (const site of SAMPLE_SITES)
      if (this.sites.findNow(tx, site.name) === undefined) this.sites.insertNow(tx, site, now, true);
    const created: number[] = [];
    for (const sample of SAMPLE_SENSORS) {
      if (sensorIdByName(tx, sample.name) !== undefined) continue;
      const target = sample.target.replace('{self}', self);
      const runs = target.includes(self);
      // Validated like an API create, so the sample set can never hold a sensor the API would refuse.
      const draft = mergeDraft(null, { ...sample, target, site: sample.site, enabled: runs }, this.catalogue);
      const { results, outages } = inventHistory(sample, from, now);
      const last = results.at(-1);
      const id = insertSampleSensor(
        tx,
        {
          name: draft.name,
          type: draft.type,
          target: draft.target,
          interval: draft.interval,
          retries: SAMPLE_RETRIES,
          reminderEvery: 0,
          group: draft.group,
          tags: draft.tags,
          siteId: sample.site ? (this.sites.findNow(tx, sample.site)?.id ?? null) : null,
          parentId: null,
          enabled: runs,
          options: draft.options,
          message: last?.message ?? '',
          lastCheckedAt: last?.ts ?? null,
          latencyMs: last?.latencyMs ?? null,
        },
        now,
      );
      this.history.insertSampleResults(tx, id, results);
      for (const outage of outages.filter((o) => failuresIn(results, o) >= SAMPLE_RETRIES))
        this.incidents.insertSample(tx, id, outage.startedAt, outage.resolvedAt, outage.cause);
      this.summarise(id, from, marks);
      created.push(id);
    }
    return created;
  }

  /**
   * Hours and days the maintenance pass has already passed over get their buckets now; later ones
   * the next pass summarises as usual.
   */
  private summarise(
    id: number,
    from: number,
    marks: { hourlyThrough: number | null; dailyThrough: number | null },
  ): void {
    if (marks.hourlyThrough !== null)
      this.history.summariseHoursNow(id, alignDown(from, HOUR_MS), marks.hourlyThrough);
    if (marks.dailyThrough !== null)
      this.history.summariseDaysNow(id, alignDown(from, DAY_MS), marks.dailyThrough);
  }

  /** This monitor's own address for the sensors that watch it. */
  private selfAddress(): string {
    const address = this.http.httpAdapter?.getHttpServer?.()?.address?.() as
      { port?: number } | null | undefined;
    const port = address?.port ?? this.config.listen.port;
    const host = ['0.0.0.0', '::', ''].includes(this.config.listen.host)
      ? '127.0.0.1'
      : this.config.listen.host;
    return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  }
}

const failuresIn = (
  results: { ts: number; success: boolean }[],
  outage: { startedAt: number; resolvedAt: number },
) => results.filter((r) => !r.success && r.ts >= outage.startedAt && r.ts < outage.resolvedAt).length;
