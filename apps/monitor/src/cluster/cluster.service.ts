import { Inject, Injectable } from '@nestjs/common';
import type { ClusterView } from '@monitor/contracts';
import { clusterViewOf, ConflictError, NotFoundError } from '@monitor/domain';
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
    if (this.self.clustered) {
      await this.membership.refresh();
      const { now, rows } = this.membership.snapshot();
      return clusterViewOf(rows, now, this.self.deadAfterMs, this.scheduler.enabledIds(), this.self.name);
    }
    const now = this.clock.now();
    return {
      mode: 'single',
      self: this.self.name,
      dead_after_s: this.self.deadAfterMs / 1000,
      instances: [
        {
          name: this.self.name,
          version: this.self.version,
          started_at: iso(this.startedAt),
          last_seen_at: iso(now),
          alive: true,
          gone: null,
          sensors: this.scheduler.enabledIds().length,
        },
      ],
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
