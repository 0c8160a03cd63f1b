import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { DatabaseLifecycle } from '../core/database/database.module';
import { sqliteHandle } from '../core/database/sqlite-handle';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';

export interface StoredResult {
  sensorId: number;
  ts: number;
  success: boolean;
  statusCode: number | null;
  latencyMs: number | null;
  message: string;
}

/** The runtime columns of a sensor row, written with its results. */
export interface SensorRuntimeColumns {
  status: string;
  message: string;
  lastCheckedAt: number;
  latencyMs: number | null;
  streak: number;
  statusChangedAt: number | null;
  lastAlertAt: number | null;
}

/** Longest a result waits in memory before it is written. */
export const FLUSH_INTERVAL_MS = 5000;
/** A batch this large is written at once. */
export const FLUSH_SIZE = 2000;
/** Results kept for a retry when writing fails; older ones are dropped beyond this. */
const MAX_PENDING = 100_000;

/**
 * Probe results are written in batches: one transaction for many results, never one per probe.
 * Two results of one sensor in the same millisecond are kept apart by moving the later one on.
 */
@Injectable()
export class ResultWriter implements OnModuleInit {
  private results: StoredResult[] = [];
  private sensors = new Map<number, SensorRuntimeColumns>();
  private readonly lastTs = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  private closed = false;
  /** While above 0, results wait in memory (another connection is writing; see hold). */
  private holds = 0;
  private db!: Database.Database;
  private insertResult!: Database.Statement;
  private updateSensor!: Database.Statement;
  private writeBatch!: (results: StoredResult[], sensors: Map<number, SensorRuntimeColumns>) => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly lifecycle: DatabaseLifecycle,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  onModuleInit(): void {
    // The last flush happens after the HTTP server has drained, just before the database closes.
    this.lifecycle.beforeClose(() => {
      this.flush();
      this.closed = true;
    });
    this.db = sqliteHandle(this.dataSource);
    this.insertResult = this.db.prepare(
      `INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message)
       SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sensors WHERE id = ?)`,
    );
    this.updateSensor = this.db.prepare(
      `UPDATE sensors SET status = ?, message = ?, last_checked_at = ?, latency_ms = ?, streak = ?,
         status_changed_at = coalesce(?, status_changed_at), last_alert_at = ? WHERE id = ?`,
    );
    this.writeBatch = this.db.transaction(
      (results: StoredResult[], sensors: Map<number, SensorRuntimeColumns>) => {
        for (const r of results) {
          // A sensor deleted while its result waited here is skipped rather than failing the batch.
          this.insertResult.run(
            r.sensorId,
            r.ts,
            r.success ? 1 : 0,
            r.statusCode,
            r.latencyMs,
            r.message,
            r.sensorId,
          );
        }
        for (const [id, s] of sensors) {
          this.updateSensor.run(
            s.status,
            s.message,
            s.lastCheckedAt,
            s.latencyMs,
            s.streak,
            s.statusChangedAt,
            s.lastAlertAt,
            id,
          );
        }
      },
    );
  }

  /** Queues a result (and the sensor's runtime columns); returns the timestamp it is stored under. */
  enqueue(result: StoredResult, sensor?: SensorRuntimeColumns): number {
    const previous = this.lastTs.get(result.sensorId) ?? 0;
    const ts = Math.max(result.ts, previous + 1);
    this.lastTs.set(result.sensorId, ts);
    this.results.push({ ...result, ts });
    if (sensor) this.sensors.set(result.sensorId, sensor);
    if (this.results.length >= FLUSH_SIZE) this.flush();
    else this.arm();
    return ts;
  }

  /** Updates a sensor's runtime columns without a result (pause, reminders). */
  enqueueSensor(sensorId: number, sensor: SensorRuntimeColumns): void {
    this.sensors.set(sensorId, sensor);
    this.arm();
  }

  private arm(): void {
    if (this.closed) return;
    this.timer ??= setTimeout(() => this.flush(), FLUSH_INTERVAL_MS);
  }

  /**
   * Keeps results in memory until the returned release is called: a restore writing through
   * another connection holds the write lock for seconds, and a flush meanwhile would block the
   * event loop on SQLite's busy wait. Release writes what waited.
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.flush();
    };
  }

  /** The time of the oldest result still waiting to be written, or Infinity. */
  oldestPending(): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const result of this.results) if (result.ts < oldest) oldest = result.ts;
    return oldest;
  }

  /** Forgets a deleted sensor's pending writes. */
  forget(sensorId: number): void {
    this.results = this.results.filter((r) => r.sensorId !== sensorId);
    this.sensors.delete(sensorId);
    this.lastTs.delete(sensorId);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed || (this.results.length === 0 && this.sensors.size === 0)) return;
    // Joining a transaction someone else has open would tie these rows to its fate: wait instead.
    if (this.db.inTransaction || this.holds > 0) return this.arm();
    const results = this.results;
    const sensors = this.sensors;
    this.results = [];
    this.sensors = new Map();
    try {
      this.writeBatch(results, sensors);
    } catch (error) {
      // Keep the batch for the next attempt (a locked database), within a bound.
      this.logger.error(
        { error: (error as Error).message, results: results.length },
        'writing probe results failed',
      );
      this.results = [...results, ...this.results].slice(-MAX_PENDING);
      for (const [id, sensor] of sensors) if (!this.sensors.has(id)) this.sensors.set(id, sensor);
      this.arm();
    }
  }
}
