import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { activationMs, activeMembers, isAlive } from '@monitor/domain';
import { Subject } from 'rxjs';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { ClusterSession, LOCK_CLASS } from '../core/database/cluster-session';
import { databaseHost } from '../core/config/database-url';
import { describePgError } from '../core/database/open-postgres';
import { DatabaseLifecycle } from '../core/database/database.module';
import { EventBus } from '../core/events/event-bus';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { INSTANCE_IDENTITY, type InstanceIdentity } from '../core/process/instance-identity';
import { StartupError } from '../core/process/startup-error';
import { ClusterRepository, type InstanceRow } from './cluster.repository';

/** NOTIFY channel on which instances say they joined or left, so the others look at once. */
export const MEMBERSHIP_CHANNEL = 'monitor_cluster';
/** Cleanly stopped instances stay listed this long. */
const FORGET_STOPPED_MS = 3600_000;

/** A member stopped probing the sensors it handed over when the members became `members`. */
export interface Release {
  from: string;
  members: string;
  /** When it stopped them, on the database's clock. */
  at: number;
}

/** The members sharing the sensors changed (`after` is empty while this instance is fenced). */
export interface MembershipChange {
  before: readonly string[];
  after: readonly string[];
  /** Members that left cleanly or died since the last look: their sensors need no handing over. */
  gone: ReadonlySet<string>;
}

/**
 * This instance's membership of the cluster: it holds the advisory lock on its name (a second live
 * instance of the same name cannot start), registers, renews its heartbeat every `dead_after`/5,
 * reads who else is alive and tells the scheduler when the members sharing the work change. An
 * instance that could not renew its heartbeat for most of `dead_after` while others were alive
 * stops probing (fenced), so the others can take over without two probing one sensor. On SQLite
 * there is one member: this process.
 */
@Injectable()
export class MembershipService implements OnModuleInit {
  readonly changes = new Subject<MembershipChange>();
  readonly releases = new Subject<Release>();
  private rows: InstanceRow[] = [];
  private dbNow = 0;
  /** performance.now() when `dbNow` was read, to tell the database's time between readings. */
  private readAt = 0;
  private active: string[] = [];
  private fenced = false;
  private lastRenewed = -Infinity;
  private timer?: NodeJS.Timeout;
  private refreshing?: Promise<void>;
  private again?: Promise<void>;
  private left = false;
  private stoppedProbingAt?: number;
  /** Tokens of unfinished outbox rows not found among the members, and since when. */
  private readonly unknownSince = new Map<string, number>();
  /** When this instance's database connection last came back (performance.now()). */
  private rejoinedAt?: number;

  constructor(
    @Inject(INSTANCE_IDENTITY) readonly self: InstanceIdentity,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    private readonly session: ClusterSession,
    private readonly repository: ClusterRepository,
    private readonly lifecycle: DatabaseLifecycle,
    private readonly events: EventBus,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {
    if (!self.clustered) this.active = [self.name];
  }

  /** How often the heartbeat is renewed and the members are read. */
  get periodMs(): number {
    return activationMs(this.self.deadAfterMs);
  }

  /** After how long without a heartbeat an instance counts as dead. */
  get deadAfterMs(): number {
    return this.self.deadAfterMs;
  }

  /** The members sharing the sensors now, sorted (empty while fenced). */
  get members(): readonly string[] {
    return this.fenced ? [] : this.active;
  }

  /** Every registered instance as last read, with the database's time of that reading. */
  snapshot(): { now: number; rows: readonly InstanceRow[] } {
    return { now: this.dbNow, rows: this.rows };
  }

  /**
   * Of the processes named (by their start tokens), those whose work others may take over: one
   * listed as stopped or dead, or one never seen for two periods (an earlier run of a restarted
   * instance). A token not seen yet may be a newcomer this instance has not read about; alone on
   * SQLite, every other token is an earlier run.
   */
  orphaned(tokens: readonly string[]): string[] {
    const others = tokens.filter((t) => t !== this.self.token);
    if (!this.self.clustered) return others;
    const now = performance.now();
    // Back from a lost database connection, every heartbeat looks old and the others reconnect when
    // they do: they get dead_after to renew theirs (and to mark the alerts they sent meanwhile)
    // before anything of theirs is taken over. One that does not is dead by then anyway.
    if (this.rejoinedAt !== undefined && now - this.rejoinedAt < this.self.deadAfterMs) return [];
    const known = new Map(this.rows.map((r) => [r.token, isAlive(r, this.dbNow, this.self.deadAfterMs)]));
    for (const token of this.unknownSince.keys())
      if (!others.includes(token)) this.unknownSince.delete(token);
    return others.filter((token) => {
      const alive = known.get(token);
      if (alive !== undefined) return !alive;
      const since = this.unknownSince.get(token) ?? now;
      this.unknownSince.set(token, since);
      return now - since >= 2 * this.periodMs;
    });
  }

  async onModuleInit(): Promise<void> {
    if (!this.self.clustered) return;
    await this.session.connect().catch((error: unknown) => {
      const url = this.config.database_url ?? '';
      throw new StartupError(
        `cannot open the cluster connection to the database at ${databaseHost(url)}: ${describePgError(error, url)}`,
      );
    });
    if (!(await this.session.tryLock(LOCK_CLASS.instanceName, this.self.name))) {
      await this.session.close();
      throw new StartupError(
        `instance name "${this.self.name}" is already in use by a live instance on this database: give each instance its own instance_name (MONITOR_INSTANCE_NAME)`,
      );
    }
    const sent = performance.now();
    await this.repository.register(this.self);
    this.lastRenewed = sent;
    this.session.onReconnect(() => this.rejoin());
    await this.session.listen(MEMBERSHIP_CHANNEL, (payload) => this.heard(payload));
    await this.refresh();
    await this.session.notify(MEMBERSHIP_CHANNEL, this.self.name);
    this.timer = setInterval(() => void this.beat(), this.periodMs);
    this.timer.unref();
    this.lifecycle.afterFinalWrites(() => this.leave());
  }

  /** After a lost session: the name lock went with it, so take it again before counting as alive. */
  private async rejoin(): Promise<void> {
    this.rejoinedAt = performance.now();
    if (!(await this.session.tryLock(LOCK_CLASS.instanceName, this.self.name))) {
      this.logger.error(
        { instance: this.self.name },
        'another instance took this instance name while the database was unreachable: this instance stops probing',
      );
      this.left = true;
      this.fence();
      return;
    }
    await this.beat();
  }

  private async beat(): Promise<void> {
    if (this.left) return;
    try {
      // Counted from when it was sent: the stored heartbeat is no older than that.
      const sent = performance.now();
      if (!(await this.repository.heartbeat(this.self))) await this.repository.register(this.self);
      this.lastRenewed = sent;
      await this.refresh();
    } catch (error) {
      this.logger.warn({ error: (error as Error).message }, 'cluster heartbeat failed');
    }
    if (!this.mayProbe()) this.fence();
  }

  /** True when no other instance is alive (always on SQLite). */
  get alone(): boolean {
    return !this.rows.some((r) => r.name !== this.self.name && isAlive(r, this.dbNow, this.self.deadAfterMs));
  }

  /**
   * False once the heartbeat has not been renewed for dead_after minus one period while other
   * instances were alive: they are about to take this instance's sensors over.
   */
  mayProbe(): boolean {
    if (!this.self.clustered) return true;
    if (this.left) return false;
    return this.alone || performance.now() - this.lastRenewed < this.self.deadAfterMs - this.periodMs;
  }

  private fence(): void {
    if (this.fenced) return;
    this.fenced = true;
    this.logger.warn(
      { instance: this.self.name },
      'cluster heartbeat not renewed: this instance stops probing so that another takes its sensors over',
    );
    this.changes.next({ before: this.active, after: [], gone: new Set() });
  }

  /** A member joined or left (its name), or released sensors (JSON): look again, or pass it on. */
  private heard(payload: string): void {
    if (!payload.startsWith('{')) return void this.refresh().catch(() => undefined);
    try {
      const release = JSON.parse(payload) as Release;
      if (release.from !== this.self.name) this.releases.next(release);
    } catch {
      // Not ours: ignored.
    }
  }

  /** The database's time now, estimated from the last reading. */
  dbTime(): number {
    return this.dbNow + (performance.now() - this.readAt);
  }

  /**
   * Tells the others this instance stopped, `agoMs` ago, the sensors it no longer owns under
   * `members`, so their new owners need not wait to be sure of it.
   */
  async release(members: readonly string[], agoMs: number): Promise<void> {
    const release: Release = { from: this.self.name, members: members.join('\n'), at: this.dbTime() - agoMs };
    await this.session.notify(MEMBERSHIP_CHANNEL, JSON.stringify(release));
  }

  /** Reads the members; one reading at a time, a request during one reads again after it. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again ??= this.refreshing
        .catch(() => undefined)
        .then(() => {
          this.again = undefined;
          return this.refresh();
        });
      return this.again;
    }
    this.refreshing = this.read().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async read(): Promise<void> {
    if (this.left) return;
    const { now, rows } = await this.repository.list();
    const before = this.rows;
    const wasAlive = new Set(
      before.filter((r) => isAlive(r, this.dbNow, this.self.deadAfterMs)).map((r) => r.name),
    );
    this.rows = rows;
    this.dbNow = now;
    this.readAt = performance.now();
    const alive = new Set(rows.filter((r) => isAlive(r, now, this.self.deadAfterMs)).map((r) => r.name));
    const gone = new Set<string>();
    for (const name of wasAlive) {
      if (alive.has(name)) continue;
      gone.add(name);
      const stopped = rows.find((r) => r.name === name)?.stoppedAt != null;
      this.announce(name, stopped ? 'left' : 'dead');
    }
    for (const name of alive) if (!wasAlive.has(name) && before.length > 0) this.announce(name, 'joined');
    const previous = this.members;
    this.active = activeMembers(rows, now, this.self.deadAfterMs, this.periodMs);
    const wasFenced = this.fenced;
    if (this.mayProbe()) this.fenced = false;
    if (wasFenced || previous.join('\n') !== this.members.join('\n'))
      this.changes.next({ before: previous, after: this.members, gone });
    if (rows.some((r) => r.stoppedAt !== null && now - r.stoppedAt > FORGET_STOPPED_MS))
      await this.repository.forgetStopped(FORGET_STOPPED_MS);
  }

  private announce(instance: string, state: 'joined' | 'left' | 'dead'): void {
    if (instance === this.self.name) return;
    if (state === 'dead')
      this.logger.warn({ instance }, 'instance stopped answering: taking over its sensors');
    else
      this.logger.info(
        { instance },
        state === 'left' ? 'instance left the cluster' : 'instance joined the cluster',
      );
    this.events.emit('cluster', { instance, state });
  }

  /**
   * From when (the database's time) a member that is gone surely probed nothing: a clean stop's
   * `stopped_at`, or for a dead one the moment it fenced itself at the latest (its last heartbeat
   * plus dead_after minus one period). Null when unknown.
   */
  freeSince(name: string | null): number | null {
    const row = this.rows.find((r) => r.name === name);
    if (!row) return null;
    return row.stoppedAt ?? row.lastSeenAt + this.self.deadAfterMs - this.periodMs;
  }

  /** The scheduler stopped for good: the slots after now are the others' to probe. */
  stoppedProbing(): void {
    this.stoppedProbingAt ??= performance.now();
  }

  /** A clean stop, after the last results were stored: the others take the sensors over at once. */
  async leave(): Promise<void> {
    if (!this.self.clustered || this.left) return;
    this.left = true;
    if (this.timer) clearInterval(this.timer);
    try {
      await this.repository.leave(
        this.self,
        performance.now() - (this.stoppedProbingAt ?? performance.now()),
      );
      await this.session.notify(MEMBERSHIP_CHANNEL, this.self.name);
      this.logger.info({ instance: this.self.name }, 'left the cluster');
    } finally {
      await this.session.close();
    }
  }

  /** Removes a stopped or dead instance from the list (its notice); false when it is alive. */
  async forget(name: string): Promise<boolean> {
    const removed = await this.repository.removeUnlessAlive(name, this.self.deadAfterMs);
    await this.refresh();
    return removed;
  }
}
