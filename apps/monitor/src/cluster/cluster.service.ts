import { Inject, Injectable } from '@nestjs/common';
import type { ClusterInstance, ClusterView } from '@monitor/contracts';
import { ConflictError, isAlive, NotFoundError } from '@monitor/domain';
import { Clock } from '../core/clock/clock';
import { INSTANCE_IDENTITY, type InstanceIdentity } from '../core/process/instance-identity';
import { SchedulerService } from '../scheduler/scheduler.service';
import { MembershipService } from './membership.service';

const iso = (ms: number) => new Date(ms).toISOString();

/** The instances as the API, the doctor and the dashboard show them. */
@Injectable()
export class ClusterService {
  private readonly startedAt: number;

  constructor(
    @Inject(INSTANCE_IDENTITY) private readonly self: InstanceIdentity,
    private readonly membership: MembershipService,
    private readonly scheduler: SchedulerService,
    private readonly clock: Clock,
  ) {
    this.startedAt = clock.now();
  }

  async view(): Promise<ClusterView> {
    const load = this.scheduler.load();
    const base = { self: this.self.name, dead_after_s: this.self.deadAfterMs / 1000 };
    if (!this.self.clustered) {
      const now = this.clock.now();
      return {
        ...base,
        mode: 'single',
        instances: [this.instance(this.self.name, this.startedAt, now, null, load)],
      };
    }
    await this.membership.refresh();
    const { now, rows } = this.membership.snapshot();
    return {
      ...base,
      mode: 'cluster',
      instances: rows.map((row) => {
        const alive = isAlive(row, now, this.self.deadAfterMs);
        const gone = alive ? null : row.stoppedAt !== null ? 'stopped' : 'dead';
        return {
          ...this.instance(row.name, row.startedAt, row.lastSeenAt, gone, load),
          version: row.version,
        };
      }),
    };
  }

  private instance(
    name: string,
    startedAt: number,
    lastSeenAt: number,
    gone: ClusterInstance['gone'],
    load: Map<string, number>,
  ): ClusterInstance {
    return {
      name,
      version: this.self.version,
      started_at: iso(startedAt),
      last_seen_at: iso(lastSeenAt),
      alive: gone === null,
      gone,
      sensors: load.get(name) ?? 0,
    };
  }

  /** Dismisses a stopped or dead instance (and its notice). */
  async forget(name: string): Promise<void> {
    if (this.self.clustered && (await this.membership.forget(name))) return;
    const listed = this.self.clustered
      ? this.membership.snapshot().rows.some((r) => r.name === name)
      : name === this.self.name;
    if (listed)
      throw new ConflictError(`instance "${name}" is alive: only a stopped or dead instance can be removed`);
    throw new NotFoundError(`no instance named "${name}"`);
  }
}
