import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { firstSlot, nextDueAfter, PushDeadlines, ScheduleQueue } from '@monitor/domain';
import { MembershipService } from '../cluster/membership.service';
import { ProbeCatalogue } from '@monitor/probes';
import { Clock } from '../core/clock/clock';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { ProcessMetrics } from '../core/metrics/process-metrics';
import { RUN_OPTIONS, type RunOptions } from '../core/process/run-options';
import { RollupMaintenance } from '../history/rollup-maintenance.service';
import { MaintenanceService } from '../maintenance/maintenance.service';
import { SensorsRepository } from '../sensors/sensors.repository';
import { graceOf, probeKey } from './probe-key';
import { ProbeRuns } from './run-probe';
import type { SensorDefinition } from '../sensors/sensor-definition';
import { SensorHandover } from './sensor-handover';
import { SensorRuntimeService } from './sensor-runtime.service';

const TICK_MS = 1000;

/**
 * One loop per enabled sensor, kept in one timing structure: a min-heap of due times and a single
 * timer armed for the earliest. Schedules are fixed-rate from a random start offset within the
 * first interval, so equal intervals do not fire together and a slow probe delays nobody else.
 */
@Injectable()
export class SchedulerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly queue = new ScheduleQueue();
  /** Push sensors are not probed: they have deadlines, checked once a second. */
  private readonly pushes = new PushDeadlines();
  private readonly probes: ProbeRuns;
  private readonly handover: SensorHandover;
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
    private readonly membership: MembershipService,
    @Inject(RUN_OPTIONS) private readonly options: RunOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly metrics: ProcessMetrics,
  ) {
    this.probes = new ProbeRuns(catalogue, runtime, clock, metrics, logger);
    this.handover = new SensorHandover(membership, runtime, this, clock, logger);
  }

  get isStarted(): boolean {
    return this.started;
  }

  async onApplicationBootstrap(): Promise<void> {
    const started = performance.now();
    const definitions = await this.sensors.definitions();
    await this.runtime.rebuild(definitions, (id) => this.owns(id));
    this.logger.info(
      { sensors: definitions.length, ms: Math.round(performance.now() - started) },
      'runtime state rebuilt',
    );
    // An hour is not summarised while a probe started in it is still running.
    this.rollups.holdWhile(() => this.probes.oldestStart());
    if (this.options.startScheduler) this.start();
  }

  /** Whether this instance probes the sensor (always, on SQLite). */
  owns(id: number): boolean {
    return this.handover.owns(id);
  }

  /** The enabled sensors, whoever probes them. */
  enabledIds(): number[] {
    return [...this.runtime.all()].filter((e) => e.definition.enabled).map((e) => e.definition.id);
  }

  /** Sensors taken over (see SensorHandover.takeOver) continue on their old schedules. */
  continueLoops(ids: readonly number[], lastRuns: ReadonlyMap<number, number | null>, since: number): void {
    const now = this.clock.now();
    for (const id of ids) {
      const entry = this.runtime.get(id);
      if (!entry || !this.owns(id) || this.queue.has(id) || this.probes.has(id)) continue;
      if (entry.definition.type === 'push') {
        // Pushes sent to the old owner meanwhile were recorded there; the silence counts from now.
        if (!this.pushes.has(id)) this.watchPush(entry.definition, now);
        continue;
      }
      const interval = entry.definition.interval * 1000;
      const runs = [lastRuns.get(id), entry.lastCheckedAt].filter((t): t is number => typeof t === 'number');
      const slot = firstSlot(runs.length > 0 ? Math.max(...runs) : null, interval, since);
      this.keys.set(id, probeKey(entry.definition));
      this.queue.schedule(id, slot >= now ? slot : now + Math.random() * Math.min(interval / 4, 5000));
    }
    this.arm();
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.handover.start();
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

  /** Brings every loop in line with the stored definitions (another instance changed them). */
  async resync(): Promise<void> {
    const definitions = await this.sensors.definitions();
    const stored = new Set(definitions.map((d) => d.id));
    for (const definition of definitions) await this.reconcile(definition.id, definition);
    for (const entry of [...this.runtime.all()])
      if (!stored.has(entry.definition.id)) await this.reconcile(entry.definition.id);
  }

  private place(definition: SensorDefinition, initial: boolean): void {
    const key = probeKey(definition);
    const unchanged =
      this.keys.get(definition.id) === key &&
      (this.queue.has(definition.id) || this.pushes.has(definition.id));
    this.keys.set(definition.id, key);
    if (!definition.enabled || !this.owns(definition.id)) return this.stopLoop(definition.id);
    if (unchanged && !initial) return;
    const from = this.handover.handOverFrom(definition.id);
    if (from !== null) {
      // Another instance may still probe it under the list it holds: it comes as a hand-over does.
      this.stopLoop(definition.id);
      return this.handover.awaitRelease(from, this.membership.members, [definition.id]);
    }
    if (definition.type === 'push') return this.placePush(definition, initial);
    this.stopLoop(definition.id);
    const jitter = Math.random() * definition.interval * 1000;
    this.queue.schedule(definition.id, this.clock.now() + jitter);
    this.arm();
  }

  /**
   * A push sensor's deadline counts from now after a start or a resume (no pusher could reach a
   * stopped server, so a restart never raises a false alarm); a changed interval or grace keeps
   * the silence so far.
   */
  private placePush(definition: SensorDefinition, initial: boolean): void {
    this.queue.remove(definition.id);
    if (initial || !this.pushes.has(definition.id)) this.watchPush(definition, this.clock.now());
    else this.pushes.retime(definition.id, definition.interval, graceOf(definition), this.clock.now());
  }

  private watchPush(definition: SensorDefinition, from: number): void {
    this.pushes.watch(definition.id, from, definition.interval, graceOf(definition));
  }

  /**
   * A push arrived for a sensor this instance owns: its deadline starts over. False when this
   * instance does not watch it (not started, paused, or owned by another instance).
   */
  pushed(id: number, at: number): boolean {
    return this.started && this.pushes.pushed(id, at);
  }

  /** Stops a sensor's loop here (its probe running now included); reconcile or a takeover restarts it. */
  stopLoop(id: number): void {
    this.queue.remove(id);
    this.pushes.drop(id);
    this.probes.stop(id);
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
    // Fenced (heartbeat lost while others are alive): skip until the membership change stops all.
    const fenced = !this.membership.mayProbe();
    for (const { id, due } of this.queue.takeDue(now)) {
      const entry = this.runtime.get(id);
      if (!entry || !entry.definition.enabled) continue;
      const interval = entry.definition.interval * 1000;
      this.queue.schedule(id, nextDueAfter(due, interval, now));
      if (fenced || this.probes.has(id)) this.missed++;
      else {
        this.metrics.probeStarted(now - due);
        void this.probes.run(entry.definition);
      }
    }
    this.arm();
  }

  private async tick(): Promise<void> {
    const now = this.clock.now();
    await this.missedPushes(now);
    const begun = this.maintenance.active(now).filter((w) => !this.startedWindows.has(w.id));
    for (const window of begun) this.startedWindows.add(window.id);
    await this.runtime.tick(
      begun.map((w) => ({ name: w.name, covers: (id: number) => this.maintenance.covers(w, id) })),
      (id) => this.owns(id),
    );
  }

  /** Push sensors whose deadline passed: a failure each, stamped at the deadline. */
  private async missedPushes(now: number): Promise<void> {
    if (!this.started) return;
    const missed = this.pushes.takeMissed(now);
    // Fenced (heartbeat lost): another instance may own these by now; it watches them itself.
    if (missed.length === 0 || !this.membership.mayProbe()) return;
    const announced: Promise<unknown>[] = [];
    for (const { id, at, message } of missed) {
      try {
        announced.push(
          (await this.runtime.submit(id, { success: false, message, latencyMs: null }, at)).announced,
        );
      } catch (error) {
        this.logger.error(
          { sensor_id: id, error: (error as Error).message },
          'recording a missed push failed',
        );
      }
    }
    // The tick ends once they are stored and shown (their results share one commit).
    await Promise.all(announced);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.started = false;
    this.membership.stoppedProbing();
    this.handover.stop();
    if (this.timer) clearTimeout(this.timer);
    if (this.ticker) clearInterval(this.ticker);
    this.probes.stopAll();
    await this.catalogue.close();
  }
}
