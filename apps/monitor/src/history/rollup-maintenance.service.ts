import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import {
  daysDue,
  DAY_MS,
  hoursDue,
  pruneCutoffs,
  type RollupWatermarks,
  type Span,
  splitSpan,
} from '@monitor/domain';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { ClusterLocks } from '../cluster/cluster-locks.service';
import { MembershipService } from '../cluster/membership.service';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { UnitOfWork, type SqlExecutor } from '../core/database/unit-of-work';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { SensorsRepository } from '../sensors/sensors.repository';
import { SettingsRepository } from '../settings/settings.repository';
import { HistoryRepository } from './history.repository';
import { ResultWriter } from './result-writer.service';

export const PASS_EVERY_MS = 5 * 60_000;
/** One piece of work holds the database this long at most before letting probes and requests in. */
const CHUNK_BUDGET_MS = 10;
const WATERMARK_KEYS = {
  hourlyThrough: 'history.hourly_through',
  dailyThrough: 'history.daily_through',
} as const;

export interface PassReport {
  hourly_buckets: number;
  daily_buckets: number;
  pruned_raw: number;
  pruned_hourly: number;
  chunks: number;
  max_chunk_ms: number;
  duration_ms: number;
}

/**
 * The maintenance pass: summarises complete hours into hourly buckets and complete days into daily
 * buckets, then prunes raw results and hourly buckets past their retention. It is incremental (it
 * resumes from stored watermarks) and works sensor by sensor in chunks of about CHUNK_BUDGET_MS,
 * yielding between them, so probing and the API never wait long for it. Re-running it rewrites
 * the same buckets.
 */
/** With other instances alive an hour is summarised this long after it ends (their late results). */
const CLUSTER_HOLD_MS = 10 * 60_000;

const emptyReport = (): PassReport => ({
  hourly_buckets: 0,
  daily_buckets: 0,
  pruned_raw: 0,
  pruned_hourly: 0,
  chunks: 0,
  max_chunk_ms: 0,
  duration_ms: 0,
});

@Injectable()
export class RollupMaintenance implements BeforeApplicationShutdown {
  private running?: Promise<PassReport>;
  private timer?: NodeJS.Timeout;
  private stopping = false;
  private openSince: () => number = () => Number.POSITIVE_INFINITY;

  constructor(
    private readonly unit: UnitOfWork,
    private readonly history: HistoryRepository,
    private readonly sensors: SensorsRepository,
    private readonly settings: SettingsRepository,
    private readonly writer: ResultWriter,
    private readonly clock: Clock,
    private readonly locks: ClusterLocks,
    private readonly membership: MembershipService,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** Hours from the time `openSince` answers on are not summarised yet (probes still running). */
  holdWhile(openSince: () => number): void {
    this.openSince = openSince;
  }

  /** A pass now (at start) and every five minutes after; called once the scheduler starts. */
  startSchedule(): void {
    if (this.timer || this.stopping) return;
    void this.runPassLogged();
    this.timer = setInterval(() => void this.runPassLogged(), PASS_EVERY_MS);
    this.timer.unref();
  }

  beforeApplicationShutdown(): Promise<unknown> | undefined {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    return this.running?.catch(() => undefined);
  }

  private async runPassLogged(): Promise<void> {
    try {
      const report = await this.runPass();
      const worked = report.hourly_buckets + report.daily_buckets + report.pruned_raw + report.pruned_hourly;
      // A pass with nothing to do is routine: no info line every five minutes for it.
      if (worked > 0) this.logger.info({ ...report }, 'history maintenance pass');
      else this.logger.debug({ ...report }, 'history maintenance pass');
    } catch (error) {
      if (error instanceof PassStopped) return;
      this.logger.error({ error: (error as Error).message }, 'history maintenance pass failed');
    }
  }

  /**
   * Runs one pass, or joins the one already running. With several instances one of them runs it at
   * a time; the others skip their turn (an empty report).
   */
  runPass(): Promise<PassReport> {
    this.running ??= this.locks
      .ifFree('history-maintenance', () => this.pass())
      .then((report) => report ?? emptyReport())
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** How far the hourly and daily buckets are complete (read inside `tx` when given). */
  async watermarks(tx?: SqlExecutor): Promise<RollupWatermarks> {
    const read = (key: string) => this.settings.get<number | null>(key, null, tx);
    return {
      hourlyThrough: await read(WATERMARK_KEYS.hourlyThrough),
      dailyThrough: await read(WATERMARK_KEYS.dailyThrough),
    };
  }

  private async pass(): Promise<PassReport> {
    const started = performance.now();
    const report = emptyReport();
    // A batch being written is neither waiting nor readable yet: let it land first.
    await this.writer.settled();
    const now = this.clock.now();
    const marks = await this.watermarks();
    const q = this.history;

    const hours = hoursDue(
      marks.hourlyThrough,
      marks.hourlyThrough === null ? await q.oldestRaw() : null,
      now,
      // Other instances' probes and batches are not visible here: their hour waits a while longer.
      Math.min(
        this.openSince(),
        this.writer.oldestPending(),
        this.membership.alone ? Infinity : now - CLUSTER_HOLD_MS,
      ),
    );
    for (const piece of pieces(hours)) {
      report.hourly_buckets += await this.eachSensor(
        report,
        (id) => q.summariseHoursNow(id, piece.from, piece.to),
        (tx, ids) => q.summariseHours(tx, ids, piece.from, piece.to),
      );
      marks.hourlyThrough = await this.advance('hourlyThrough', piece.to);
    }
    const oldestHourly = marks.dailyThrough === null ? await q.oldestHourly() : null;
    for (const piece of pieces(daysDue(marks.dailyThrough, marks.hourlyThrough, oldestHourly))) {
      report.daily_buckets += await this.eachSensor(
        report,
        (id) => q.summariseDaysNow(id, piece.from, piece.to),
        (tx, ids) => q.summariseDays(tx, ids, piece.from, piece.to),
      );
      marks.dailyThrough = await this.advance('dailyThrough', piece.to);
    }
    const cutoffs = pruneCutoffs(
      marks,
      {
        rawMs: this.config.retention.raw_seconds * 1000,
        hourlyMs: this.config.retention.hourly_seconds * 1000,
      },
      now,
    );
    if (Number.isFinite(cutoffs.raw))
      report.pruned_raw = await this.eachSensor(
        report,
        (id) => q.pruneRawNow(id, cutoffs.raw),
        (tx, ids) => q.pruneRaw(tx, ids, cutoffs.raw),
      );
    if (Number.isFinite(cutoffs.hourly))
      report.pruned_hourly = await this.eachSensor(
        report,
        (id) => q.pruneHourlyNow(id, cutoffs.hourly),
        (tx, ids) => q.pruneHourly(tx, ids, cutoffs.hourly),
      );
    report.duration_ms = Math.round(performance.now() - started);
    return report;
  }

  private async advance(key: keyof RollupWatermarks, through: number): Promise<number> {
    await this.settings.set(WATERMARK_KEYS[key], through);
    return through;
  }

  /**
   * Runs `work` for every sensor, in transactions of about CHUNK_BUDGET_MS each, yielding to the
   * event loop between them. Returns the total of what `work` returned.
   */
  private async eachSensor(
    report: PassReport,
    work: (sensorId: number) => number,
    setWork: (tx: SqlExecutor, sensorIds: number[]) => Promise<number>,
  ): Promise<number> {
    const ids = await this.sensors.ids();
    if (this.unit.dialect === 'postgres') return this.eachSensorSet(report, ids, setWork);
    let total = 0;
    let next = 0;
    const chunk = () =>
      this.unit.now(() => {
        const started = performance.now();
        while (next < ids.length && performance.now() - started < CHUNK_BUDGET_MS) total += work(ids[next++]);
        return performance.now() - started;
      });
    while (next < ids.length) {
      // Shutting down: stop between chunks; the unfinished piece is redone at the next start.
      if (this.stopping) throw new PassStopped();
      // Never join a transaction someone else has open on the shared connection.
      while (this.unit.inTransaction) await delay(5);
      const ms = chunk();
      report.chunks += 1;
      report.max_chunk_ms = Math.max(report.max_chunk_ms, Math.round(ms * 10) / 10);
      await yieldToEventLoop();
    }
    return total;
  }

  /** PostgreSQL: one set-based statement per slice of sensors, each in its own transaction. */
  private async eachSensorSet(
    report: PassReport,
    ids: number[],
    work: (tx: SqlExecutor, sensorIds: number[]) => Promise<number>,
  ): Promise<number> {
    let total = 0;
    for (let at = 0; at < ids.length; at += SENSORS_PER_STATEMENT) {
      if (this.stopping) throw new PassStopped();
      const started = performance.now();
      total += await this.unit.transaction((tx) => work(tx, ids.slice(at, at + SENSORS_PER_STATEMENT)));
      report.chunks += 1;
      report.max_chunk_ms = Math.max(
        report.max_chunk_ms,
        Math.round((performance.now() - started) * 10) / 10,
      );
    }
    return total;
  }
}

/** PostgreSQL: this many sensors per set-based statement and transaction. */
const SENSORS_PER_STATEMENT = 500;

class PassStopped extends Error {
  constructor() {
    super('the maintenance pass stopped for shutdown');
  }
}

/** A backlog (the first pass, or after downtime) is worked through a day at a time. */
const pieces = (span: Span | null): Span[] => (span ? splitSpan(span, DAY_MS) : []);

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
