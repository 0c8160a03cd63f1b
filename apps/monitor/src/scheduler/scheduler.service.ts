import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import {
  firstSlot,
  handOverFrom,
  nextDueAfter,
  ownerOf,
  PushDeadlines,
  ScheduleQueue,
  viewsBetween,
} from '@monitor/domain';
import type { Subscription } from 'rxjs';
import { MembershipService, type MembershipChange, type Release } from '../cluster/membership.service';
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
import { runProbe } from './run-probe';
import type { SensorDefinition } from '../sensors/sensor-definition';
import { SensorRuntimeService } from './sensor-runtime.service';

const TICK_MS = 1000;
const STOPPED = 'stopped';

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
  private membershipChanges?: Subscription;
  private readonly takeovers = new Set<NodeJS.Timeout>();
  /** Sensors waiting for a live previous owner to release them, by that owner. */
  private readonly awaitingRelease = new Map<
    string,
    { members: string; ids: number[]; timer: NodeJS.Timeout }
  >();
  /** Releases heard lately, by the member that sent them (one may come before our own look). */
  private readonly released = new Map<string, Release>();

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
  ) {}

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
    this.rollups.holdWhile(() => Math.min(...this.runningSince.values()));
    if (this.options.startScheduler) this.start();
  }

  /** Whether this instance probes the sensor (always, on SQLite). */
  owns(id: number): boolean {
    return ownerOf(id, this.membership.members) === this.membership.self.name;
  }

  /** The enabled sensors, whoever probes them. */
  enabledIds(): number[] {
    return [...this.runtime.all()].filter((e) => e.definition.enabled).map((e) => e.definition.id);
  }

  /**
   * The members changed: sensors this instance no longer owns stop at once; sensors it gains are
   * taken over, from stored data, once their previous owner cannot probe them any more.
   */
  private rebalance({ before, after, gone }: MembershipChange): void {
    if (!this.started) return;
    const self = this.membership.self.name;
    const handedOver: number[] = [];
    const fromLive = new Map<string, number[]>();
    const fromGone = new Map<string | null, number[]>();
    for (const { definition } of this.runtime.all()) {
      if (!definition.enabled) continue;
      const was = ownerOf(definition.id, before);
      const now = ownerOf(definition.id, after);
      if (was === self && now !== self) {
        this.stopLoop(definition.id);
        handedOver.push(definition.id);
      } else if (was !== self && now === self) {
        if (was !== null && !gone.has(was)) fromLive.set(was, [...(fromLive.get(was) ?? []), definition.id]);
        else fromGone.set(was, [...(fromGone.get(was) ?? []), definition.id]);
      }
    }
    if (handedOver.length > 0) {
      const stoppedAt = this.clock.now();
      this.logger.info({ sensors: handedOver.length, members: after.length }, 'handed sensors over');
      if (after.length > 0)
        void this.runtime
          .flush()
          .then(() => this.membership.release(after, this.clock.now() - stoppedAt))
          .catch(() => undefined);
    }
    for (const [was, ids] of fromLive) this.awaitRelease(was, after, ids);
    const { now: dbNow } = this.membership.snapshot();
    for (const [was, ids] of fromGone) {
      const free = this.membership.freeSince(was);
      this.takeOverLater(ids, 0, free === null ? null : this.clock.now() - (dbNow - free));
    }
  }

  /**
   * Sensors from a live owner: taken over once it says it released them (at once if it said so
   * already), or, should its word not come, after one membership period and a half second, by when
   * it has heard of the change and stopped them.
   */
  private awaitRelease(was: string, members: readonly string[], ids: number[]): void {
    const key = members.join('\n');
    const said = this.released.get(was);
    if (said?.members === key) return this.takeOverReleased(said, ids);
    const waiting = this.awaitingRelease.get(was);
    if (waiting) clearTimeout(waiting.timer);
    const all = waiting?.members === key ? [...waiting.ids, ...ids] : ids;
    const timer = setTimeout(() => {
      this.awaitingRelease.delete(was);
      this.takeOverLater(all, 0, null);
    }, this.membership.periodMs + 500);
    this.awaitingRelease.set(was, { members: key, ids: all, timer });
  }

  private heardRelease(release: Release): void {
    this.released.set(release.from, release);
    const forget = setTimeout(
      () => {
        if (this.released.get(release.from) === release) this.released.delete(release.from);
      },
      2 * this.membership.periodMs + 1000,
    );
    forget.unref();
    const waiting = this.awaitingRelease.get(release.from);
    if (!waiting || waiting.members !== release.members) return;
    clearTimeout(waiting.timer);
    this.awaitingRelease.delete(release.from);
    this.takeOverReleased(release, waiting.ids);
  }

  private takeOverReleased(release: Release, ids: number[]): void {
    this.takeOverLater(ids, 0, this.clock.now() - (this.membership.dbTime() - release.at));
  }

  private takeOverLater(ids: number[], delayMs: number, freeSince: number | null): void {
    if (ids.length === 0) return;
    const timer = setTimeout(() => {
      this.takeovers.delete(timer);
      void this.takeOver(ids, freeSince).catch((error: unknown) =>
        this.logger.error({ error: (error as Error).message }, 'taking sensors over failed'),
      );
    }, delayMs);
    this.takeovers.add(timer);
  }

  /**
   * Rebuilds the sensors' state from stored data (as a restart does) and continues each on its old
   * schedule: the first slot from `freeSince` on (when the previous owner surely stopped probing;
   * the takeover's own time when unknown), at once (spread over a few seconds) for such a slot
   * already past: nobody probed it.
   */
  private async takeOver(candidates: number[], freeSince: number | null): Promise<void> {
    const ids = candidates.filter((id) => this.owns(id) && this.runtime.get(id)?.definition.enabled);
    if (ids.length === 0 || !this.started) return;
    // The old owner's latest runs as its events told them: newer than its stored batch can be.
    const heard = new Map(ids.map((id) => [id, this.runtime.get(id)?.lastCheckedAt ?? null]));
    await this.runtime.refresh(ids, (id) => this.owns(id));
    const now = this.clock.now();
    const since = Math.min(freeSince ?? now, now);
    for (const id of ids) {
      const entry = this.runtime.get(id);
      if (!entry || !this.owns(id) || this.queue.has(id) || this.running.has(id)) continue;
      if (entry.definition.type === 'push') {
        // Pushes sent to the old owner meanwhile were recorded there; the silence counts from now.
        if (!this.pushes.has(id)) this.watchPush(entry.definition, now);
        continue;
      }
      const interval = entry.definition.interval * 1000;
      const runs = [heard.get(id), entry.lastCheckedAt].filter((t): t is number => typeof t === 'number');
      const slot = firstSlot(runs.length > 0 ? Math.max(...runs) : null, interval, since);
      this.keys.set(id, probeKey(entry.definition));
      this.queue.schedule(id, slot >= now ? slot : now + Math.random() * Math.min(interval / 4, 5000));
    }
    this.arm();
    this.logger.info({ sensors: ids.length }, 'took sensors over');
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.membershipChanges = this.membership.changes.subscribe((change) => this.rebalance(change));
    this.membershipChanges.add(this.membership.releases.subscribe((release) => this.heardRelease(release)));
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
    const from = this.handOverFrom(definition.id);
    if (from !== null) {
      // Another instance may still probe it under the list it holds: it comes as a hand-over does.
      this.stopLoop(definition.id);
      return this.awaitRelease(from, this.membership.members, [definition.id]);
    }
    if (definition.type === 'push') return this.placePush(definition, initial);
    this.stopLoop(definition.id);
    const jitter = Math.random() * definition.interval * 1000;
    this.queue.schedule(definition.id, this.clock.now() + jitter);
    this.arm();
  }

  /**
   * The member to wait for before probing a sensor this instance owns, or null to probe at once:
   * the others' lists may be as old as their last reading, a period ago (two, for a late one).
   */
  private handOverFrom(id: number): string | null {
    const { now, rows } = this.membership.snapshot();
    if (rows.length < 2) return null;
    const period = this.membership.periodMs;
    const to = this.membership.dbTime();
    const views = viewsBetween(rows, Math.min(now, to) - 2 * period, to, this.membership.deadAfterMs, period);
    return handOverFrom(id, this.membership.self.name, this.membership.members, views);
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

  private stopLoop(id: number): void {
    this.queue.remove(id);
    this.pushes.drop(id);
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
    // Fenced (heartbeat lost while others are alive): skip until the membership change stops all.
    const fenced = !this.membership.mayProbe();
    for (const { id, due } of this.queue.takeDue(now)) {
      const entry = this.runtime.get(id);
      if (!entry || !entry.definition.enabled) continue;
      const interval = entry.definition.interval * 1000;
      this.queue.schedule(id, nextDueAfter(due, interval, now));
      if (fenced || this.running.has(id)) this.missed++;
      else {
        this.metrics.probeStarted(now - due);
        void this.run(entry.definition);
      }
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
      const submitted =
        controller.signal.reason === STOPPED ? null : await this.runtime.submit(definition.id, outcome, at);
      // Counted once stored and announced; the loop is free again as soon as the result is queued.
      void (submitted?.announced ?? Promise.resolve()).then(() =>
        this.metrics.probeFinished(definition.id, outcome.success, outcome.certExpiresAt),
      );
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
    this.membershipChanges?.unsubscribe();
    for (const timer of this.takeovers) clearTimeout(timer);
    for (const { timer } of this.awaitingRelease.values()) clearTimeout(timer);
    if (this.timer) clearTimeout(this.timer);
    if (this.ticker) clearInterval(this.ticker);
    for (const controller of this.running.values()) controller.abort(STOPPED);
    await this.catalogue.close();
  }
}
