import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { ExampleCounts } from '@monitor/contracts';
import { alignDown, ConflictError, DAY_MS, HOUR_MS } from '@monitor/domain';
import { ProbeCatalogue } from '@monitor/probes';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { sqliteHandle } from '../core/database/sqlite-handle';
import { writeAtomically } from '../core/database/write-atomically';
import { EventBus } from '../core/events/event-bus';
import { HistoryQueries } from '../history/history.queries';
import { RollupMaintenance } from '../history/rollup-maintenance.service';
import { SchedulerService } from '../scheduler/scheduler.service';
import { mergeDraft } from '../sensors/sensor-input';
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
    private readonly dataSource: DataSource,
    private readonly catalogue: ProbeCatalogue,
    private readonly scheduler: SchedulerService,
    private readonly rollups: RollupMaintenance,
    private readonly events: EventBus,
    private readonly clock: Clock,
    private readonly http: HttpAdapterHost,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
  ) {}

  private get db(): Database.Database {
    return sqliteHandle(this.dataSource);
  }

  counts(): ExampleCounts {
    return this.db
      .prepare(
        `SELECT (SELECT count(*) FROM sensors WHERE sample = 1) AS sensors,
           (SELECT count(*) FROM probe_results WHERE sensor_id IN (SELECT id FROM sensors WHERE sample = 1)) AS results,
           (SELECT count(*) FROM incidents WHERE sensor_id IN (SELECT id FROM sensors WHERE sample = 1)) AS incidents,
           (SELECT count(*) FROM sites WHERE sample = 1) AS sites`,
      )
      .get() as ExampleCounts;
  }

  async load(): Promise<ExampleCounts> {
    const declared = this.config.sensors.length + this.config.sites.length + this.config.channels.length;
    if (declared > 0)
      throw new ConflictError('this installation is configured from a file: sample data cannot be loaded');
    // The totals are read in the same transaction: a load or removal racing this one cannot skew them.
    const { created, totals } = await writeAtomically(this.dataSource, () => ({
      created: this.insert(),
      totals: this.counts(),
    }));
    for (const id of created) {
      await this.scheduler.reconcile(id);
      this.events.emit('sensor', { id, action: 'created' });
    }
    return totals;
  }

  /** Removes sample rows; what went is counted in the same transaction that removes it. */
  async remove(): Promise<ExampleCounts> {
    const { ids, gone } = await writeAtomically(this.dataSource, (db) => {
      const before = this.counts();
      const ids = db.prepare('SELECT id FROM sensors WHERE sample = 1').pluck().all() as number[];
      db.prepare('DELETE FROM sensors WHERE sample = 1').run();
      const sites = db
        .prepare(
          'DELETE FROM sites WHERE sample = 1 AND id NOT IN (SELECT site_id FROM sensors WHERE site_id IS NOT NULL)',
        )
        .run().changes;
      return { ids, gone: { ...before, sites } };
    });
    for (const id of ids) {
      await this.scheduler.reconcile(id);
      this.events.emit('sensor', { id, action: 'deleted' });
    }
    return gone;
  }

  /** Sites, sensors, their invented results and incidents, and the rollups; inside `writeAtomically`. */
  private insert(): number[] {
    const db = this.db;
    const now = this.clock.now();
    const from = now - SAMPLE_DAYS * DAY_MS;
    const self = this.selfAddress();
    const queries = new HistoryQueries(db);
    const marks = this.rollups.watermarks();
    const exists = (table: string, name: string) =>
      db.prepare(`SELECT id FROM ${table} WHERE name = ? ORDER BY id LIMIT 1`).pluck().get(name) as
        number | undefined;
    const insertSite = db.prepare(
      `INSERT INTO sites (name, kind, lat, lon, sample, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)`,
    );
    const insertSensor = db.prepare(
      `INSERT INTO sensors (name, type, target, interval, retries, reminder_every, group_name, tags, site_id, enabled,
         options, sort_order, sample, status, message, last_checked_at, latency_ms, streak, status_changed_at, created_at, updated_at)
       VALUES (@name, @type, @target, @interval, @retries, 0, @group, @tags, @site, @enabled, @options,
         (SELECT coalesce(max(sort_order), 0) + 1 FROM sensors), 1, @status, @message, @checked, @latency, 0, @checked, @now, @now)`,
    );
    const insertResult = db.prepare(
      'INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const insertIncident = db.prepare(
      'INSERT INTO incidents (sensor_id, started_at, resolved_at, cause) VALUES (?, ?, ?, ?)',
    );
    for (const site of SAMPLE_SITES)
      if (exists('sites', site.name) === undefined)
        insertSite.run(site.name, site.kind, site.lat, site.lon, now, now);
    const created: number[] = [];
    for (const sample of SAMPLE_SENSORS) {
      if (exists('sensors', sample.name) !== undefined) continue;
      const target = sample.target.replace('{self}', self);
      const runs = target.includes(self);
      // Validated like an API create, so the sample set can never hold a sensor the API would refuse.
      const draft = mergeDraft(null, { ...sample, target, site: sample.site, enabled: runs }, this.catalogue);
      const { results, outages } = inventHistory(sample, from, now);
      const last = results.at(-1);
      const id = Number(
        insertSensor.run({
          name: draft.name,
          type: draft.type,
          target: draft.target,
          interval: draft.interval,
          retries: SAMPLE_RETRIES,
          group: draft.group,
          tags: JSON.stringify(draft.tags),
          site: sample.site ? (exists('sites', sample.site) ?? null) : null,
          enabled: runs ? 1 : 0,
          options: JSON.stringify(draft.options),
          status: runs ? 'unknown' : 'paused',
          message: last?.message ?? '',
          checked: last?.ts ?? null,
          latency: last?.latencyMs ?? null,
          now,
        }).lastInsertRowid,
      );
      for (const r of results)
        insertResult.run(id, r.ts, r.success ? 1 : 0, r.statusCode, r.latencyMs, r.message);
      for (const outage of outages.filter((o) => failuresIn(results, o) >= SAMPLE_RETRIES))
        insertIncident.run(id, outage.startedAt, outage.resolvedAt, outage.cause);
      this.summarise(queries, id, from, marks);
      created.push(id);
    }
    return created;
  }

  /**
   * Hours and days the maintenance pass has already passed over get their buckets now; later ones
   * the next pass summarises as usual.
   */
  private summarise(
    queries: HistoryQueries,
    id: number,
    from: number,
    marks: { hourlyThrough: number | null; dailyThrough: number | null },
  ): void {
    if (marks.hourlyThrough !== null)
      queries.summariseHours.run(id, alignDown(from, HOUR_MS), marks.hourlyThrough);
    if (marks.dailyThrough !== null)
      queries.summariseDays.run(id, alignDown(from, DAY_MS), marks.dailyThrough);
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
