import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { ExampleCounts } from '@monitor/contracts';
import { alignDown, ConflictError, DAY_MS, HOUR_MS, type RollupWatermarks } from '@monitor/domain';
import { ProbeCatalogue } from '@monitor/probes';
import { ClusterLocks } from '../cluster/cluster-locks.service';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { UnitOfWork, type SqlExecutor } from '../core/database/unit-of-work';
import { EventBus } from '../core/events/event-bus';
import { HistoryRepository } from '../history/history.repository';
import { RollupMaintenance } from '../history/rollup-maintenance.service';
import { IncidentsRepository } from '../incidents/incidents.repository';
import { SchedulerService } from '../scheduler/scheduler.service';
import { draftColumns, mergeDraft } from '../sensors/sensor-input';
import {
  deleteSampleSensors,
  insertSampleSensor,
  sampleSensorIds,
  sensorIdByName,
  siteIdsInUse,
} from '../sensors/sample-sensors.sql';
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
    private readonly locks: ClusterLocks,
    private readonly http: HttpAdapterHost,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
  ) {}

  /** What sample data is stored now (read in one transaction, so the counts agree). */
  counts(): Promise<ExampleCounts> {
    return this.unit.sql.transaction((tx) => this.countIn(tx), { readOnly: true });
  }

  private async countIn(tx: SqlExecutor): Promise<ExampleCounts> {
    const ids = await sampleSensorIds(tx);
    return {
      sensors: ids.length,
      results: await this.history.countResultsOf(tx, ids),
      incidents: await this.incidents.countOf(tx, ids),
      sites: await this.sites.countSamples(tx),
    };
  }

  async load(): Promise<ExampleCounts> {
    const declared = this.config.sensors.length + this.config.sites.length + this.config.channels.length;
    if (declared > 0)
      throw new ConflictError('this installation is configured from a file: sample data cannot be loaded');
    // The totals are read in the same transaction: a load or removal racing this one cannot skew them.
    // One instance at a time cluster-wide; the transaction keeps it whole.
    const { created, totals } = await this.locks.exclusive('sample-data', () =>
      this.unit.atomically(async (tx) => ({
        created: await this.insert(tx, await this.rollups.watermarks(tx)),
        totals: await this.countIn(tx),
      })),
    );
    for (const id of created) {
      await this.scheduler.reconcile(id);
      this.events.emit('sensor', { id, action: 'created' });
    }
    return totals;
  }

  /** Removes sample rows; what went is counted in the same transaction that removes it. */
  async remove(): Promise<ExampleCounts> {
    const { ids, gone } = await this.locks.exclusive('sample-data', () =>
      this.unit.atomically(async (tx) => {
        const before = await this.countIn(tx);
        const ids = await sampleSensorIds(tx);
        await deleteSampleSensors(tx);
        const sites = await this.sites.deleteUnusedSamples(tx, await siteIdsInUse(tx));
        return { ids, gone: { ...before, sites } };
      }),
    );
    for (const id of ids) {
      await this.scheduler.reconcile(id);
      this.events.emit('sensor', { id, action: 'deleted' });
    }
    return gone;
  }

  /** Sites, sensors, their invented results and incidents, and the rollups; inside `tx`. */
  private async insert(tx: SqlExecutor, marks: RollupWatermarks): Promise<number[]> {
    const now = this.clock.now();
    const from = now - SAMPLE_DAYS * DAY_MS;
    const self = this.selfAddress();
    for (const site of SAMPLE_SITES)
      if ((await this.sites.find(tx, site.name)) === undefined) await this.sites.insert(tx, site, now, true);
    const created: number[] = [];
    for (const sample of SAMPLE_SENSORS) {
      if ((await sensorIdByName(tx, sample.name)) !== undefined) continue;
      const target = sample.target.replace('{self}', self);
      const runs = target.includes(self);
      // Validated like an API create, so the sample set can never hold a sensor the API would refuse.
      const draft = mergeDraft(null, { ...sample, target, site: sample.site, enabled: runs }, this.catalogue);
      const { results, outages } = inventHistory(sample, from, now);
      const last = results.at(-1);
      const siteId = sample.site ? ((await this.sites.find(tx, sample.site))?.id ?? null) : null;
      const id = await insertSampleSensor(
        tx,
        {
          ...draftColumns(draft, siteId),
          retries: SAMPLE_RETRIES,
          reminderEvery: 0,
          parentId: null,
          enabled: runs,
          message: last?.message ?? '',
          lastCheckedAt: last?.ts ?? null,
          latencyMs: last?.latencyMs ?? null,
        },
        now,
      );
      await this.history.insertSampleResults(tx, id, results);
      for (const outage of outages.filter((o) => failuresIn(results, o) >= SAMPLE_RETRIES))
        await this.incidents.insertSample(tx, id, outage.startedAt, outage.resolvedAt, outage.cause);
      await this.summarise(tx, id, from, marks);
      created.push(id);
    }
    return created;
  }

  /**
   * Hours and days the maintenance pass has already passed over get their buckets now; later ones
   * the next pass summarises as usual.
   */
  private async summarise(
    tx: SqlExecutor,
    id: number,
    from: number,
    marks: { hourlyThrough: number | null; dailyThrough: number | null },
  ): Promise<void> {
    if (marks.hourlyThrough !== null)
      await this.history.summariseHours(tx, [id], alignDown(from, HOUR_MS), marks.hourlyThrough);
    if (marks.dailyThrough !== null)
      await this.history.summariseDays(tx, [id], alignDown(from, DAY_MS), marks.dailyThrough);
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
