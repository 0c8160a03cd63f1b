import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DatabaseLifecycle } from '../core/database/database.module';
import { storageErrorCode } from '../core/database/storage-errors';
import { StorageHealth } from '../core/database/storage-health';
import { UnitOfWork, type SqlExecutor } from '../core/database/unit-of-work';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { INSTANCE_IDENTITY, type InstanceIdentity } from '../core/process/instance-identity';
import type { SensorRuntimeColumns } from '../sensors/sensor-runtime-columns';
import { SensorsRepository } from '../sensors/sensors.repository';
import { HistoryRepository } from './history.repository';
import { RuntimeColumnsThrottle } from './runtime-columns-throttle';
import type { StoredResult } from './stored-result';

/**
 * Longest a result waits in memory before its transaction starts (group commit: the results that
 * complete meanwhile share it). It bounds what a kill -9 can lose and how late a result is shown:
 * results are announced once committed, within 200 ms of completing (issue 25).
 */
export const COMMIT_DELAY_MS = 100;
/** A sensor's runtime columns are rewritten at least this often while only its last check moves. */
export const RUNTIME_REFRESH_MS = 60_000;
/** A batch this large is written at once. */
export const FLUSH_SIZE = 2000;
/** Results kept for a retry when writing fails; older ones are dropped beyond this. */
const MAX_PENDING = 100_000;
/** After a failed write the next try waits 1 s, doubling up to 30 s; new results do not retry. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;
/** A backlog is written this many results per transaction, one per turn of the event loop. */
const BACKLOG_CHUNK = 5000;

/** A queued result and its place in the queue (results are committed, or given up, in that order). */
type Pending = StoredResult & { seq: number };

/**
 * Probe results are written in batches: one transaction for many results, never one per probe.
 * Two results of one sensor in the same millisecond are kept apart by moving the later one on.
 * `committed()` tells when what was queued so far is stored, so it is announced only then.
 */
@Injectable()
export class ResultWriter implements OnModuleInit {
  private results: Pending[] = [];
  private sensors = new Map<number, SensorRuntimeColumns>();
  private readonly columns = new RuntimeColumnsThrottle(RUNTIME_REFRESH_MS);
  /** The last queued result's place, and who waits for results up to which place. */
  private seq = 0;
  private readonly waiters: { seq: number; resolve: () => void }[] = [];
  private readonly lastTs = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  private closed = false;
  /** While above 0, results wait in memory (another connection is writing; see hold). */
  private holds = 0;
  /** Failed writes in a row, the time before which only the backoff timer retries, results dropped. */
  private failures = 0;
  private retryAt = 0;
  private dropped = 0;
  private awaitingRecovery = false;

  constructor(
    private readonly unit: UnitOfWork,
    private readonly history: HistoryRepository,
    private readonly lifecycle: DatabaseLifecycle,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly health: StorageHealth,
    private readonly sensorRows: SensorsRepository,
    @Inject(INSTANCE_IDENTITY) identity: InstanceIdentity,
  ) {
    this.instance = identity.resultInstance;
  }

  /** The prober every result written here names: this instance, or '' in single-instance mode. */
  private readonly instance: string;

  /** PostgreSQL: the flush in progress (one at a time), and whether another is due after it. */
  private flushing?: Promise<void>;
  private flushAgain = false;
  /** PostgreSQL: the batch being written; the maintenance pass must not close its hours yet. */
  private inFlight: Pending[] = [];

  onModuleInit(): void {
    // The last flush happens after the HTTP server has drained, just before the database closes.
    this.lifecycle.beforeClose(async () => {
      for (const [id, columns] of this.columns.takeKept())
        if (!this.sensors.has(id)) this.sensors.set(id, columns);
      await this.flushed();
      this.closed = true;
      // What could not be written is lost with the process: nobody waits for it any longer.
      for (const waiter of this.waiters.splice(0)) waiter.resolve();
    });
  }

  /** One transaction for the batch: synchronous on SQLite, multi-row statements on PostgreSQL. */
  private writeBatch(
    results: StoredResult[],
    sensors: Map<number, SensorRuntimeColumns>,
  ): void | Promise<void> {
    if (this.unit.dialect === 'postgres')
      return this.unit.transaction(async (tx) => {
        await this.history.insertResultsBatch(tx, results, this.instance);
        await this.sensorRows.writeRuntimeBatch(tx, [...sensors]);
      });
    this.unit.now(() => {
      // A sensor deleted while its result waited here is skipped rather than failing the batch.
      for (const r of results) this.history.insertResultNow(r, r.ts, this.instance);
      for (const [id, s] of sensors) this.sensorRows.writeRuntimeNow(id, s);
    });
  }

  /** Queues a result (and the sensor's runtime columns); returns the timestamp it is stored under. */
  enqueue(result: StoredResult, sensor?: SensorRuntimeColumns): number {
    const ts = this.nextTs(result);
    this.results.push({ ...result, ts, seq: ++this.seq });
    if (sensor) this.queueColumns(result.sensorId, sensor);
    if (this.results.length >= FLUSH_SIZE) this.flush();
    else this.arm();
    return ts;
  }

  /**
   * Resolves once every result queued so far is committed (or given up: dropped from a backlog
   * beyond its bound, or lost at a stop); never rejects.
   */
  committed(): Promise<void> {
    const seq = this.seq;
    if (seq <= this.doneThrough()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  /** The place up to which every queued result is committed or given up. */
  private doneThrough(): number {
    const oldest = this.inFlight[0]?.seq ?? this.results[0]?.seq;
    return oldest === undefined ? this.seq : oldest - 1;
  }

  private wake(): void {
    const done = this.doneThrough();
    let woken = 0;
    while (woken < this.waiters.length && this.waiters[woken].seq <= done) this.waiters[woken++].resolve();
    if (woken > 0) this.waiters.splice(0, woken);
  }

  private queueColumns(sensorId: number, columns: SensorRuntimeColumns): void {
    if (this.columns.due(sensorId, columns, Date.now())) this.sensors.set(sensorId, columns);
  }

  /**
   * Writes one result and the sensor's runtime columns at once, inside the caller's transaction:
   * a result that opens or closes an incident commits with it. Returns the timestamp it is stored
   * under. Earlier results of the sensor may still wait in the batch; its waiting runtime columns
   * are older than these and are dropped.
   */
  async writeIn(tx: SqlExecutor, result: StoredResult, sensor: SensorRuntimeColumns): Promise<number> {
    const ts = this.nextTs(result);
    await this.history.insertResult(tx, result, ts, this.instance);
    await this.writeSensorIn(tx, result.sensorId, sensor);
    return ts;
  }

  /** A sensor's runtime columns, inside the caller's transaction (see writeIn). */
  async writeSensorIn(tx: SqlExecutor, sensorId: number, sensor: SensorRuntimeColumns): Promise<void> {
    this.sensors.delete(sensorId);
    this.columns.forget(sensorId);
    await this.sensorRows.writeRuntime(tx, sensorId, sensor);
  }

  private nextTs(result: StoredResult): number {
    const previous = this.lastTs.get(result.sensorId) ?? 0;
    const ts = Math.max(result.ts, previous + 1);
    this.lastTs.set(result.sensorId, ts);
    return ts;
  }

  /** Updates a sensor's runtime columns without a result (pause, reminders). */
  enqueueSensor(sensorId: number, sensor: SensorRuntimeColumns): void {
    this.queueColumns(sensorId, sensor);
    this.arm();
  }

  private arm(): void {
    if (this.closed) return;
    this.timer ??= setTimeout(() => this.flush(), COMMIT_DELAY_MS);
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

  /** The time of the oldest result still waiting to be written (or being written), or Infinity. */
  oldestPending(): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const result of this.results) if (result.ts < oldest) oldest = result.ts;
    for (const result of this.inFlight) if (result.ts < oldest) oldest = result.ts;
    return oldest;
  }

  /** Forgets a deleted sensor's pending writes. */
  forget(sensorId: number): void {
    this.results = this.results.filter((r) => r.sensorId !== sensorId);
    this.sensors.delete(sensorId);
    this.columns.forget(sensorId);
    this.lastTs.delete(sensorId);
    this.wake();
  }

  /** Resolves once no batch is being written (PostgreSQL; at once on SQLite). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Writes what waits and resolves once it is written (or kept for a retry). */
  async flushed(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flush();
    while (this.flushing) await this.flushing;
  }

  flush(): void {
    // While writes fail only the backoff timer retries, so new results do not each retry the batch.
    if (this.failures > 0 && !this.lifecycle.closing && Date.now() < this.retryAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed || (this.results.length === 0 && this.sensors.size === 0)) return;
    if (this.unit.dialect === 'postgres') return this.flushPostgres();
    // Joining a transaction someone else has open would tie these rows to its fate: wait instead.
    if (this.unit.inTransaction || this.holds > 0) return this.arm();
    // A backlog left by a failure spell goes out in chunks, so the event loop stays free.
    const chunked = !this.lifecycle.closing && this.results.length > BACKLOG_CHUNK;
    const results = chunked ? this.results.slice(0, BACKLOG_CHUNK) : this.results;
    const sensors = this.sensors;
    this.results = chunked ? this.results.slice(BACKLOG_CHUNK) : [];
    this.sensors = new Map();
    try {
      void this.writeBatch(results, sensors); // SQLite: synchronous, nothing to await
    } catch (error) {
      this.keepForRetry(error, results, sensors);
      return;
    }
    this.columns.wrote(sensors, Date.now());
    this.wake();
    if (this.failures > 0)
      this.health.reportSuccess({ results_written: results.length, results_dropped: this.dropped });
    this.failures = 0;
    this.dropped = 0;
    if (chunked) setImmediate(() => this.flush());
  }

  /**
   * PostgreSQL: the batch goes out as one transaction of multi-row statements (results, then the
   * sensors' runtime columns), one flush at a time; a flush asked for meanwhile runs right after.
   */
  private flushPostgres(): void {
    if (this.flushing) {
      this.flushAgain = true;
      return;
    }
    if (this.holds > 0) return this.arm();
    const chunked = !this.lifecycle.closing && this.results.length > BACKLOG_CHUNK;
    const results = chunked ? this.results.slice(0, BACKLOG_CHUNK) : this.results;
    const sensors = this.sensors;
    this.results = chunked ? this.results.slice(BACKLOG_CHUNK) : [];
    this.sensors = new Map();
    this.inFlight = results;
    let written: Promise<void>;
    try {
      written = Promise.resolve(this.writeBatch(results, sensors));
    } catch (error) {
      written = Promise.reject(error as Error);
    }
    this.flushing = written.then(
      () => {
        this.columns.wrote(sensors, Date.now());
        if (this.failures > 0)
          this.health.reportSuccess({ results_written: results.length, results_dropped: this.dropped });
        this.failures = 0;
        this.dropped = 0;
        if (chunked) this.flushAgain = true;
      },
      (error: unknown) => this.keepForRetry(error, results, sensors),
    );
    void this.flushing.finally(() => {
      this.flushing = undefined;
      this.inFlight = [];
      this.wake();
      if (this.flushAgain && !this.closed) {
        this.flushAgain = false;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Keeps a batch that could not be written (bounded) and schedules the next try with backoff. */
  private keepForRetry(error: unknown, results: Pending[], sensors: Map<number, SensorRuntimeColumns>): void {
    this.results = [...results, ...this.results];
    if (this.results.length > MAX_PENDING) {
      this.dropped += this.results.length - MAX_PENDING;
      this.results = this.results.slice(-MAX_PENDING);
      this.wake();
    }
    for (const [id, sensor] of sensors) if (!this.sensors.has(id)) this.sensors.set(id, sensor);
    this.failures += 1;
    // One log line per spell: StorageHealth logs storage failures, this the others (a bug, corruption).
    const fields = { pending_results: this.results.length };
    if (!this.health.reportFailure(error, fields)) {
      const reason = `${storageErrorCode(error) ?? 'error'}: ${(error as Error).message}`;
      if (this.health.failed(reason))
        this.logger.error({ error: reason, ...fields }, 'writing probe results failed');
    }
    if (this.lifecycle.closing) {
      // No later attempt: the connection closes next. Say what is lost rather than wait for it.
      this.logger.error({ results: this.results.length }, 'probe results not written at shutdown');
      return;
    }
    if (!this.awaitingRecovery) {
      this.awaitingRecovery = true;
      this.health.whenRecovered(() => {
        this.awaitingRecovery = false;
        this.retryNow();
      });
    }
    const delay = Math.min(RETRY_FIRST_MS * 2 ** (this.failures - 1), RETRY_MAX_MS);
    this.retryAt = Date.now() + delay;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.retryAt = 0;
      this.flush();
    }, delay);
  }

  /** Storage works again (someone else's write succeeded): write the backlog without waiting. */
  private retryNow(): void {
    if (this.failures === 0) return;
    this.retryAt = 0;
    setImmediate(() => this.flush());
  }
}
