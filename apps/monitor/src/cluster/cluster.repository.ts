import { Injectable } from '@nestjs/common';
import { ClusterSession } from '../core/database/cluster-session';
import type { InstanceIdentity } from '../core/process/instance-identity';
import { DB_NOW, type InstanceRow, readInstances } from './cluster-rows.sql';

export type { InstanceRow };

/**
 * The instances sharing the database (table `cluster_instances`, owned by the cluster feature).
 * Read and written on the instance's own cluster session, so heartbeats never queue behind the
 * pool's work: a busy pool must not make a live instance look dead.
 */
@Injectable()
export class ClusterRepository {
  constructor(private readonly session: ClusterSession) {}

  /** Registers (or re-registers) this instance as just started; returns the database's time. */
  async register(self: InstanceIdentity): Promise<number> {
    const [row] = await this.session.query<{ now: number }>(
      `INSERT INTO cluster_instances (name, token, version, started_at, last_seen_at, stopped_at)
       VALUES ($1, $2, $3, ${DB_NOW}, ${DB_NOW}, NULL)
       ON CONFLICT (name) DO UPDATE SET token = excluded.token, version = excluded.version,
         started_at = excluded.started_at, last_seen_at = excluded.last_seen_at, stopped_at = NULL
       RETURNING last_seen_at AS now`,
      [self.name, self.token, self.version],
    );
    return Number(row.now);
  }

  /**
   * Renews the heartbeat. An instance the others already took for dead (heartbeat older than
   * `deadAfterMs`) rejoins as if just started, so it waits its turn like a newcomer. False when its
   * row is gone (removed by an administrator): the caller registers again.
   */
  async heartbeat(self: InstanceIdentity): Promise<boolean> {
    const rows = await this.session.query(
      `UPDATE cluster_instances SET
         started_at = CASE WHEN ${DB_NOW} - last_seen_at > $3 THEN ${DB_NOW} ELSE started_at END,
         last_seen_at = ${DB_NOW}
       WHERE name = $1 AND token = $2 RETURNING name`,
      [self.name, self.token, self.deadAfterMs],
    );
    return rows.length > 0;
  }

  /** Every registered instance and the database's time of reading. */
  list(): Promise<{ now: number; rows: InstanceRow[] }> {
    return readInstances((sql) => this.session.query(sql));
  }

  /**
   * A clean stop: the row stays (the view shows it stopped) and no longer counts as alive.
   * `stopped_at` is when the instance stopped probing, `stoppedAgoMs` before now.
   */
  async leave(self: InstanceIdentity, stoppedAgoMs: number): Promise<void> {
    await this.session.query(
      `UPDATE cluster_instances SET stopped_at = ${DB_NOW} - $3 WHERE name = $1 AND token = $2`,
      [self.name, self.token, Math.max(0, Math.round(stoppedAgoMs))],
    );
  }

  /** Removes a stopped or dead instance's row; false when it is alive or unknown. */
  async removeUnlessAlive(name: string, deadAfterMs: number): Promise<boolean> {
    const rows = await this.session.query(
      `DELETE FROM cluster_instances
       WHERE name = $1 AND (stopped_at IS NOT NULL OR ${DB_NOW} - last_seen_at > $2) RETURNING name`,
      [name, deadAfterMs],
    );
    return rows.length > 0;
  }

  /** Rows of instances that stopped cleanly more than `olderThanMs` ago are forgotten. */
  async forgetStopped(olderThanMs: number): Promise<void> {
    await this.session.query(
      `DELETE FROM cluster_instances WHERE stopped_at IS NOT NULL AND ${DB_NOW} - stopped_at > $1`,
      [olderThanMs],
    );
  }
}
