import { Inject, Injectable } from '@nestjs/common';
import type {
  HistoryRange,
  HistoryTier,
  SeriesResponse,
  StoredProbeResult,
  UptimeResponse,
} from '@monitor/contracts';
import {
  bucketStats,
  type Bucket,
  chooseStep,
  DAY_MS,
  emptyBucket,
  HOUR_MS,
  chooseTier,
  downtimeMs,
  fillSeries,
  firstDayOf,
  historyWindow,
  lastDayWindow,
  startOfUtcDay,
  NotFoundError,
  type Retention,
  type SensorRollups,
} from '@monitor/domain';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { toIncidentView } from '../incidents/incident.view';
import { IncidentsRepository } from '../incidents/incidents.repository';
import { SensorsRepository } from '../sensors/sensors.repository';
import { HistoryRepository } from './history.repository';
import { ResultWriter } from './result-writer.service';

/** Incidents listed in an uptime answer; the count covers all of them. */
const UPTIME_INCIDENT_ITEMS = 100;
/** How long the summary's 24 h uptimes are reused. */
const LAST_DAY_CACHE_MS = 60_000;

/** Share of successful results per window, null when the window holds none. */
export type UptimeRatios = Record<'1d' | '30d' | '365d', number | null>;

interface SensorRow {
  id: number;
  name: string;
  interval: number;
}

/** Reads of one sensor's history; every range reads exactly one tier. */
@Injectable()
export class HistoryService {
  private lastDay: { at: number; uptime: Map<number, number | null> } | undefined;

  constructor(
    private readonly queries: HistoryRepository,
    private readonly sensors: SensorsRepository,
    private readonly incidentRows: IncidentsRepository,
    private readonly writer: ResultWriter,
    private readonly clock: Clock,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
  ) {}

  get retention(): Retention {
    return {
      rawMs: this.config.retention.raw_seconds * 1000,
      hourlyMs: this.config.retention.hourly_seconds * 1000,
    };
  }

  async results(sensorId: number, limit: number): Promise<StoredProbeResult[]> {
    await this.sensor(sensorId);
    await this.writer.flushed();
    return (await this.queries.recentResults(sensorId, limit)).map((row) => ({
      ts: new Date(row.ts).toISOString(),
      success: row.success === 1,
      status_code: row.status_code,
      message: row.message,
      latency_ms: row.latency_ms,
      instance: row.instance,
    }));
  }

  async series(sensorId: number, range: HistoryRange): Promise<SeriesResponse> {
    const sensor = await this.sensor(sensorId);
    const { tier, from, to } = await this.window(sensor, range);
    const step = chooseStep(to - from, tier, sensor.interval * 1000);
    const buckets = await this.queries.bucketed(tier, sensorId, from - (from % step), to, step);
    return {
      range,
      tier,
      from: iso(from),
      to: iso(to),
      step_seconds: step / 1000,
      points: fillSeries(buckets, from, to, step),
    };
  }

  async uptime(sensorId: number, range: HistoryRange): Promise<UptimeResponse> {
    const sensor = await this.sensor(sensorId);
    const { tier, from, to } = await this.window(sensor, range);
    const total = await this.queries.total(tier, sensorId, from, to);
    const stats = bucketStats(total);
    const incidents = await this.incidentRows.overlapping(sensorId, from, to);
    return {
      range,
      tier,
      from: iso(from),
      to: iso(to),
      uptime: { percent: stats.uptime, count: total.count, up: total.up },
      latency: { avg_ms: stats.avgMs, min_ms: stats.minMs, max_ms: stats.maxMs },
      incidents: {
        count: incidents.length,
        items: incidents.slice(0, UPTIME_INCIDENT_ITEMS).map((i) => toIncidentView(i, sensor.name)),
      },
      downtime: { seconds: Math.round(downtimeMs(incidents, from, to) / 1000) },
    };
  }

  /**
   * Every sensor's percent up over the last 24 full hours, from the hourly rollups (the rollup pass
   * summarises an hour within minutes of its end). Kept for a minute: the summary asks on every
   * dashboard's connect and every minute, and the answer changes once an hour.
   */
  async uptimeLastDay(): Promise<ReadonlyMap<number, number | null>> {
    const now = this.clock.now();
    if (this.lastDay && now - this.lastDay.at < LAST_DAY_CACHE_MS && now >= this.lastDay.at) {
      return this.lastDay.uptime;
    }
    const to = now - (now % HOUR_MS);
    const uptime = new Map<number, number | null>();
    for (const row of await this.queries.hourlyTotalsOfAll(to - DAY_MS, to)) {
      uptime.set(row.sensor_id, bucketStats({ ...emptyBucket(), count: row.count, up: row.up }).uptime);
    }
    this.lastDay = { at: now, uptime };
    return uptime;
  }

  /**
   * Many sensors' rollups as a public status page shows them: 90 days of daily buckets, today's
   * hourly ones (today has no daily bucket yet) and the last 24 full hours. Three statements for
   * all the sensors together.
   */
  async pageRollups(
    sensorIds: readonly number[],
    now: number,
  ): Promise<Map<number, Omit<SensorRollups, 'outages'>>> {
    const today = startOfUtcDay(now);
    const lastDay = lastDayWindow(now);
    const daily = await this.queries.dailyBucketsOf(sensorIds, firstDayOf(now, 90), today);
    const todays = await this.queries.hourlyTotalsOf(sensorIds, today, today + DAY_MS);
    const lastDays = await this.queries.hourlyTotalsOf(sensorIds, lastDay.from, lastDay.to);
    return new Map(
      sensorIds.map((id) => [
        id,
        {
          daily: daily.get(id) ?? new Map(),
          today: todays.get(id) ?? emptyBucket(),
          lastDay: lastDays.get(id) ?? emptyBucket(),
        },
      ]),
    );
  }

  /**
   * Some sensors' share of successful results over the last day (24 full hours), 30 and 365 days
   * (that many UTC days including today, today from its hourly buckets), from the rollups alone;
   * null where the window holds no result. Four statements for all the sensors together.
   */
  async uptimeRatios(sensorIds: readonly number[], now: number): Promise<Map<number, UptimeRatios>> {
    const today = startOfUtcDay(now);
    const lastDay = lastDayWindow(now);
    const day = await this.queries.hourlyTotalsOf(sensorIds, lastDay.from, lastDay.to);
    const todays = await this.queries.hourlyTotalsOf(sensorIds, today, today + DAY_MS);
    const month = await this.queries.dailyTotalsOf(sensorIds, firstDayOf(now, 30), today);
    const year = await this.queries.dailyTotalsOf(sensorIds, firstDayOf(now, 365), today);
    const ratio = (...buckets: (Bucket | undefined)[]): number | null => {
      let count = 0;
      let up = 0;
      for (const b of buckets) {
        count += b?.count ?? 0;
        up += b?.up ?? 0;
      }
      return count > 0 ? up / count : null;
    };
    return new Map(
      sensorIds.map((id) => [
        id,
        {
          '1d': ratio(day.get(id)),
          '30d': ratio(month.get(id), todays.get(id)),
          '365d': ratio(year.get(id), todays.get(id)),
        },
      ]),
    );
  }

  private async window(
    sensor: SensorRow,
    range: HistoryRange,
  ): Promise<{ tier: HistoryTier; from: number; to: number }> {
    const tier = chooseTier(range, this.retention);
    // Results still waiting for their batch belong in a raw read.
    if (tier === 'raw') await this.writer.flushed();
    const oldest = range === 'all' ? await this.queries.oldestDailyBucket(sensor.id) : null;
    return { tier, ...historyWindow(range, tier, this.clock.now(), oldest) };
  }

  private async sensor(id: number): Promise<SensorRow> {
    const row = await this.sensors.basics(id);
    if (!row) throw new NotFoundError(`no sensor with id ${id}`);
    return row;
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
