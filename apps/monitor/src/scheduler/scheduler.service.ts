import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { nextDueAfter, ScheduleQueue } from '@monitor/domain';
import { ProbeCatalogue, type ProbeOutcome, timeoutMs } from '@monitor/probes';
import { Clock } from '../core/clock/clock';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { RUN_OPTIONS, type RunOptions } from '../core/process/run-options';
import { RollupMaintenance } from '../history/rollup-maintenance.service';
import { MaintenanceService } from '../maintenance/maintenance.service';
import { SensorsRepository } from '../sensors/sensors.repository';
import type { SensorDefinition } from './runtime-entry';
import { SensorRuntimeService } from './sensor-runtime.service';

const TICK_MS = 1000;
const STOPPED = 'stopped';

/** Fields whose change restarts a sensor's loop; others (name, group…) apply in place. */
const probeKey = (d: SensorDefinition): string =>
  JSON.stringify([d.type, d.target, d.interval, d.options, d.enabled]);

/**
 * One loop per enabled sensor, kept in one timing structure: a min-heap of due times and a single
 * timer armed for the earliest. Schedules are fixed-rate from a random start offset within the
 * first interval, so equal intervals do not fire together and a slow probe delays nobody else.
 */
@Injectable()
export class SchedulerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly queue = new ScheduleQueue();
  private readonly running = new Map<number, AbortController>();
  /** When each running probe started: its result will be stamped with that time. */
  private readonly runningSince = new Map<number, number>();
  private readonly keys = new Map<number, string>();
  private timer?: NodeJS.Timeout;
  private ticker?: NodeJS.Timeout;
  private started = false;
  private readonly startedWindows = new Set<number>();
  /** Runs skipped because the previous run of the same sensor was still going. */
  missed = 0;

  constructor(
    private readonly sensors: SensorsRepository,
    private readonly runtime: SensorRuntimeService,
    private readonly catalogue: ProbeCatalogue,
    private readonly maintenance: MaintenanceService,
    private readonly rollups: RollupMaintenance,
    private readonly clock: Clock,
    @Inject(RUN_OPTIONS) private readonly options: RunOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  get isStarted(): boolean {
    return this.started;
  }

  async onApplicationBootstrap(): Promise<void> {
    const started = performance.now();
    const definitions = await this.sensors.definitions();
    await this.runtime.rebuild(definitions);
    this.logger.info(
      { sensors: definitions.length, ms: Math.round(performance.now() - started) },
      'runtime state rebuilt',
    );
    // An hour is not summarised while a probe started in it is still running.
    this.rollups.holdWhile(() => Math.min(...this.runningSince.values()));
    if (this.options.startScheduler) this.start();
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const entry of this.runtime.all()) this.place(entry.definition, true);
    this.arm();
    this.ticker = setInterval(() => void this.tick(), TICK_MS);
    this.ticker.unref();
    // Rollups and pruning run beside the probes: once now, then every five minutes.
    this.rollups.startSchedule();
  }

  /** Brings one sensor's loop in line with its stored definition (created, changed or deleted). */
  async reconcile(id: number, known?: SensorDefinition): Promise<void> {
    const definition = known ?? (await this.sensors.definition(id));
    if (!definition) {
      this.stopLoop(id);
      this.keys.delete(id);
      this.runtime.remove(id);
      return;
    }
    await this.runtime.define(definition);
    if (this.started) this.place(definition, false);
  }

  private place(definition: SensorDefinition, initial: boolean): void {
    const key = probeKey(definition);
    const unchanged = this.keys.get(definition.id) === key && this.queue.has(definition.id);
    this.keys.set(definition.id, key);
    if (!definition.enabled) return this.stopLoop(definition.id);
    if (unchanged && !initial) return;
    this.stopLoop(definition.id);
    const jitter = Math.random() * definition.interval * 1000;
    this.queue.schedule(definition.id, this.clock.now() + jitter);
    this.arm();
  }

  private stopLoop(id: number): void {
    this.queue.remove(id);
    this.running.get(id)?.abort(STOPPED);
  }

  private arm(): void {
    if (!this.started) return;
    const due = this.queue.nextDue();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (due === null) return;
    this.timer = setTimeout(() => this.fire(), Math.max(0, due - this.clock.now()));
  }

  private fire(): void {
    const now = this.clock.now();
    for (const { id, due } of this.queue.takeDue(now)) {
      const entry = this.runtime.get(id);
      if (!entry || !entry.definition.enabled) continue;
      const interval = entry.definition.interval * 1000;
      this.queue.schedule(id, nextDueAfter(due, interval, now));
      if (this.running.has(id)) this.missed++;
      else void this.run(entry.definition);
    }
    this.arm();
  }

  private async run(definition: SensorDefinition): Promise<void> {
    const controller = new AbortController();
    this.running.set(definition.id, controller);
    const at = this.clock.now();
    this.runningSince.set(definition.id, at);
    try {
      const outcome = await runProbe(this.catalogue, definition, controller);
      // A loop stopped meanwhile (paused, changed, deleted) does not record its last run.
      if (controller.signal.reason !== STOPPED) await this.runtime.record(definition.id, outcome, at);
    } catch (error) {
      this.logger.error({ sensor_id: definition.id, error: (error as Error).message }, 'probe run failed');
    } finally {
      if (this.running.get(definition.id) === controller) {
        this.running.delete(definition.id);
        this.runningSince.delete(definition.id);
      }
    }
  }

  private async tick(): Promise<void> {
    const now = this.clock.now();
    const begun = this.maintenance.active(now).filter((w) => !this.startedWindows.has(w.id));
    for (const window of begun) this.startedWindows.add(window.id);
    await this.runtime.tick(
      begun.map((w) => ({ name: w.name, covers: (id: number) => this.maintenance.covers(w, id) })),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    if (this.ticker) clearInterval(this.ticker);
    for (const controller of this.running.values()) controller.abort(STOPPED);
    await this.catalogue.close();
  }
}

/** Runs one probe; it never outlives its time-out, whatever the probe does. */
export async function runProbe(
  catalogue: ProbeCatalogue,
  definition: SensorDefinition,
  controller: AbortController,
): Promise<ProbeOutcome> {
  const probe = catalogue.get(definition.type);
  if (!probe) return { success: false, message: `no probe for type ${definition.type}`, latencyMs: null };
  const limit = timeoutMs(definition.options, definition.interval);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ProbeOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ success: false, message: `timed out after ${limit / 1000} s`, latencyMs: null });
    }, limit + 250);
  });
  try {
    return await Promise.race([
      probe.run({
        target: definition.target,
        options: definition.options,
        timeoutMs: limit,
        signal: controller.signal,
      }),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
