import { handOverFrom, ownerOf, viewsBetween } from '@monitor/domain';
import type { Subscription } from 'rxjs';
import type { MembershipChange, MembershipService, Release } from '../cluster/membership.service';
import type { Clock } from '../core/clock/clock';
import type { AppLogger } from '../core/logging/logger';
import type { RuntimeEntry } from './runtime-entry';

/** What the hand-over reads of the cluster's members. */
export type HandoverMembership = Pick<
  MembershipService,
  | 'changes'
  | 'releases'
  | 'self'
  | 'members'
  | 'periodMs'
  | 'deadAfterMs'
  | 'snapshot'
  | 'freeSince'
  | 'dbTime'
  | 'release'
>;

/** What the hand-over reads and rebuilds of the sensors' live state. */
export interface HandoverRuntime {
  get(id: number): RuntimeEntry | undefined;
  all(): IterableIterator<RuntimeEntry>;
  flush(): Promise<void>;
  refresh(ids: readonly number[], owned: (id: number) => boolean): Promise<unknown>;
}

/** The scheduler's loops, as the hand-over starts and stops them. */
export interface HandoverLoops {
  /** False once stopped (or before starting): nothing is taken over then. */
  readonly isStarted: boolean;
  stopLoop(id: number): void;
  /**
   * Continues sensors taken over on their old schedules: `lastRuns` holds each one's newest run as
   * this instance heard of it; no slot before `since` is probed.
   */
  continueLoops(ids: readonly number[], lastRuns: ReadonlyMap<number, number | null>, since: number): void;
}

/**
 * Which instance probes which sensor, and when a sensor moves between instances: sensors this
 * instance no longer owns stop at once; sensors it gains are taken over, from stored data, once
 * their previous owner cannot probe them any more (so no sensor is probed by two at once).
 */
export class SensorHandover {
  private subscription?: Subscription;
  private readonly takeovers = new Set<NodeJS.Timeout>();
  /** Sensors waiting for a live previous owner to release them, by that owner. */
  private readonly awaitingRelease = new Map<
    string,
    { members: string; ids: number[]; timer: NodeJS.Timeout }
  >();
  /** Releases heard lately, by the member that sent them (one may come before our own look). */
  private readonly released = new Map<string, Release>();

  constructor(
    private readonly membership: HandoverMembership,
    private readonly runtime: HandoverRuntime,
    private readonly loops: HandoverLoops,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly logger: AppLogger,
  ) {}

  /** Whether this instance probes the sensor (always, on SQLite). */
  owns(id: number): boolean {
    return ownerOf(id, this.membership.members) === this.membership.self.name;
  }

  /** Follows membership changes and releases from now on. */
  start(): void {
    this.subscription = this.membership.changes.subscribe((change) => this.rebalance(change));
    this.subscription.add(this.membership.releases.subscribe((release) => this.heardRelease(release)));
  }

  stop(): void {
    this.subscription?.unsubscribe();
    for (const timer of this.takeovers) clearTimeout(timer);
    for (const { timer } of this.awaitingRelease.values()) clearTimeout(timer);
  }

  /**
   * The members changed: sensors this instance no longer owns stop at once; sensors it gains are
   * taken over, from stored data, once their previous owner cannot probe them any more.
   */
  rebalance({ before, after, gone }: MembershipChange): void {
    if (!this.loops.isStarted) return;
    const self = this.membership.self.name;
    const handedOver: number[] = [];
    const fromLive = new Map<string, number[]>();
    const fromGone = new Map<string | null, number[]>();
    for (const { definition } of this.runtime.all()) {
      if (!definition.enabled) continue;
      const was = ownerOf(definition.id, before);
      const now = ownerOf(definition.id, after);
      if (was === self && now !== self) {
        this.loops.stopLoop(definition.id);
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
   * The member to wait for before probing a sensor this instance owns, or null to probe at once:
   * the others' lists may be as old as their last reading, a period ago (two, for a late one).
   */
  handOverFrom(id: number): string | null {
    const { now, rows } = this.membership.snapshot();
    if (rows.length < 2) return null;
    const period = this.membership.periodMs;
    const to = this.membership.dbTime();
    const views = viewsBetween(rows, Math.min(now, to) - 2 * period, to, this.membership.deadAfterMs, period);
    return handOverFrom(id, this.membership.self.name, this.membership.members, views);
  }

  /**
   * Sensors from a live owner: taken over once it says it released them (at once if it said so
   * already), or, should its word not come, after one membership period and a half second, by when
   * it has heard of the change and stopped them.
   */
  awaitRelease(was: string, members: readonly string[], ids: number[]): void {
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

  heardRelease(release: Release): void {
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
  async takeOver(candidates: number[], freeSince: number | null): Promise<void> {
    const ids = candidates.filter((id) => this.owns(id) && this.runtime.get(id)?.definition.enabled);
    if (ids.length === 0 || !this.loops.isStarted) return;
    // The old owner's latest runs as its events told them: newer than its stored batch can be.
    const heard = new Map(ids.map((id) => [id, this.runtime.get(id)?.lastCheckedAt ?? null]));
    await this.runtime.refresh(ids, (id) => this.owns(id));
    const now = this.clock.now();
    this.loops.continueLoops(ids, heard, Math.min(freeSince ?? now, now));
    this.logger.info({ sensors: ids.length }, 'took sensors over');
  }
}
