import { Inject, Injectable } from '@nestjs/common';
import { ClusterSession, LOCK_CLASS } from '../core/database/cluster-session';
import { INSTANCE_IDENTITY, type InstanceIdentity } from '../core/process/instance-identity';

const RETRY_MS = 200;

/**
 * Work that runs on one instance at a time cluster-wide (the rollup and retention pass, applying
 * the configuration file, loading sample data): a session advisory lock on the cluster session,
 * freed by PostgreSQL if the holder dies. Session locks are re-entrant within a session, so work
 * of the same name also takes turns inside this process. On SQLite only the latter applies.
 */
@Injectable()
export class ClusterLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    @Inject(INSTANCE_IDENTITY) private readonly self: InstanceIdentity,
    private readonly session: ClusterSession,
  ) {}

  /** Runs `work` unless another instance holds `name` now; resolves null when it was skipped. */
  ifFree<T>(name: string, work: () => Promise<T>): Promise<T | null> {
    return this.inTurn(name, async () => {
      if (!this.self.clustered) return work();
      if (!(await this.session.tryLock(LOCK_CLASS.singleton, name))) return null;
      return this.holding(name, work);
    });
  }

  /** Runs `work` once no other instance holds `name`, waiting for it. */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    return this.inTurn(name, async () => {
      if (!this.self.clustered) return work();
      while (!(await this.session.tryLock(LOCK_CLASS.singleton, name)))
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      return this.holding(name, work);
    });
  }

  private async holding<T>(name: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      await this.session.unlock(LOCK_CLASS.singleton, name).catch(() => undefined);
    }
  }

  private inTurn<T>(name: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(name) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.tails.set(name, next);
    void next
      .catch(() => undefined)
      .then(() => {
        if (this.tails.get(name) === next) this.tails.delete(name);
      });
    return next;
  }
}
