import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
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
import { DataSource } from 'typeorm';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { sqliteHandle } from '../core/database/sqlite-handle';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { HistoryQueries } from './history.queries';
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
@Injectable()
export class RollupMaintenance implements BeforeApplicationShutdown {
  private db!: Database.Database;
  private queries!: HistoryQueries;
  private readWatermark!: Database.Statement;
  private writeWatermark!: Database.Statement;
  private running?: Promise<PassReport>;
  private timer?: NodeJS.Timeout;
  private stopping = false;
  private openSince: () => number = () => Number.POSITIVE_INFINITY;

  constructor(
    private readonly dataSource: DataSource,
    private readonly writer: ResultWriter,
    private readonly clock: Clock,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  private prepare(): void {
    if (this.queries) return;
    this.db = sqliteHandle(this.dataSource);
    this.queries = new HistoryQueries(this.db);
    this.readWatermark = this.db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
    this.writeWatermark = this.db.prepare(
      'INSERT OR REPLACE INTO settings (key, value, updated_at) VALUES (?, ?, ?)',
    );
  }

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

  /** Runs one pass, or joins the one already running. */
  runPass(): Promise<PassReport> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  watermarks(): RollupWatermarks {
    this.prepare();
    const read = (key: string) => {
      const value = this.readWatermark.get(key) as string | undefined;
      return value === undefined ? null : (JSON.parse(value) as number);
    };
    return {
      hourlyThrough: read(WATERMARK_KEYS.hourlyThrough),
      dailyThrough: read(WATERMARK_KEYS.dailyThrough),
    };
  }

  private async pass(): Promise<PassReport> {
    this.prepare();
    const started = performance.now();
    const report: PassReport = {
      hourly_buckets: 0,
      daily_buckets: 0,
      pruned_raw: 0,
      pruned_hourly: 0,
      chunks: 0,
      max_chunk_ms: 0,
      duration_ms: 0,
    };
    const now = this.clock.now();
    const marks = this.watermarks();
    const q = this.queries;

    const hours = hoursDue(
      marks.hourlyThrough,
      marks.hourlyThrough === null ? this.oldest(q.oldestRaw) : null,
      now,
      Math.min(this.openSince(), this.writer.oldestPending()),
    );
    for (const piece of pieces(hours)) {
      report.hourly_buckets += await this.eachSensor(
        report,
        (id) => q.summariseHours.run(id, piece.from, piece.to).changes,
      );
      marks.hourlyThrough = this.advance('hourlyThrough', piece.to);
    }
    const oldestHourly = marks.dailyThrough === null ? this.oldest(q.oldestHourly) : null;
    for (const piece of pieces(daysDue(marks.dailyThrough, marks.hourlyThrough, oldestHourly))) {
      report.daily_buckets += await this.eachSensor(
        report,
        (id) => q.summariseDays.run(id, piece.from, piece.to).changes,
      );
      marks.dailyThrough = this.advance('dailyThrough', piece.to);
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
      report.pruned_raw = await this.eachSensor(report, (id) => q.pruneRaw.run(id, cutoffs.raw).changes);
    if (Number.isFinite(cutoffs.hourly))
      report.pruned_hourly = await this.eachSensor(
        report,
        (id) => q.pruneHourly.run(id, cutoffs.hourly).changes,
      );
    report.duration_ms = Math.round(performance.now() - started);
    return report;
  }

  private oldest(statement: Database.Statement): number | null {
    return (statement.get() as number | null | undefined) ?? null;
  }

  private advance(key: keyof RollupWatermarks, through: number): number {
    this.writeWatermark.run(WATERMARK_KEYS[key], JSON.stringify(through), this.clock.now());
    return through;
  }

  /**
   * Runs `work` for every sensor, in transactions of about CHUNK_BUDGET_MS each, yielding to the
   * event loop between them. Returns the total of what `work` returned.
   */
  private async eachSensor(report: PassReport, work: (sensorId: number) => number): Promise<number> {
    const ids = this.queries.sensorIds.all() as number[];
    let total = 0;
    let next = 0;
    const chunk = this.db.transaction(() => {
      const started = performance.now();
      while (next < ids.length && performance.now() - started < CHUNK_BUDGET_MS) total += work(ids[next++]);
      return performance.now() - started;
    });
    while (next < ids.length) {
      // Shutting down: stop between chunks; the unfinished piece is redone at the next start.
      if (this.stopping) throw new PassStopped();
      // Never join a transaction someone else has open on the shared connection.
      while (this.db.inTransaction) await delay(5);
      const ms = chunk();
      report.chunks += 1;
      report.max_chunk_ms = Math.max(report.max_chunk_ms, Math.round(ms * 10) / 10);
      await yieldToEventLoop();
    }
    return total;
  }
}

class PassStopped extends Error {
  constructor() {
    super('the maintenance pass stopped for shutdown');
  }
}

/** A backlog (the first pass, or after downtime) is worked through a day at a time. */
const pieces = (span: Span | null): Span[] => (span ? splitSpan(span, DAY_MS) : []);

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
