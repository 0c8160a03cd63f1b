import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { sqlClientFor, type SqlClient, type SqlExecutor } from '../core/database/sql-client';
import { placeholdersFor } from '../core/database/where-in';
import type { AlertEvent } from '../core/events/event-bus';
import { INSTANCE_IDENTITY, type InstanceIdentity } from '../core/process/instance-identity';

/** What an outbox row keeps of an alert: everything but where it goes. */
export type StoredAlert = Omit<AlertEvent, 'deliveries'>;

export interface PendingDelivery {
  outboxId: number;
  channelId: number;
  alert: StoredAlert;
}

/**
 * The alert outbox (table `alert_outbox`, owned by the channels feature): one row per alert and
 * channel. Rows are added inside the transaction that writes the state change causing the alert,
 * and marked finished once their delivery has ended (delivered, or given up after its attempts).
 * Each row is claimed by the process that wrote it (`claimed_by`, its start token); a row whose
 * claimer is no longer alive (a crash, a stop in the middle of a delivery) is claimed by another
 * live process, or by the next start, exactly once.
 */
@Injectable()
export class AlertOutboxRepository {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(INSTANCE_IDENTITY) private readonly self: InstanceIdentity,
  ) {}

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  /**
   * Stores an alert for each of the channels, inside the caller's transaction. Returns the rows
   * written, one per channel that still exists.
   */
  async add(
    tx: SqlExecutor,
    alert: StoredAlert,
    channelIds: number[],
    at: number,
  ): Promise<AlertEvent['deliveries']> {
    const payload = JSON.stringify(alert);
    const rows: AlertEvent['deliveries'] = [];
    for (const channelId of new Set(channelIds)) {
      // A channel or sensor deleted meanwhile gets no row rather than failing the state change.
      const row = await tx.get<{ id: number }>(
        `INSERT INTO alert_outbox (sensor_id, channel_id, kind, payload, created_at, claimed_by)
         SELECT CAST(? AS INTEGER), CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT)
         WHERE EXISTS (SELECT 1 FROM channels WHERE id = ?) AND EXISTS (SELECT 1 FROM sensors WHERE id = ?)
         RETURNING id`,
        [alert.sensor.id, channelId, alert.kind, payload, at, this.self.token, channelId, alert.sensor.id],
      );
      if (row) rows.push({ channelId, outboxId: Number(row.id) });
    }
    return rows;
  }

  /** The processes that claimed rows still unfinished (the unclaimed ones are not listed). */
  async unfinishedClaimers(): Promise<string[]> {
    const rows = await this.sql.all<{ claimed_by: string }>(
      'SELECT DISTINCT claimed_by FROM alert_outbox WHERE finished_at IS NULL AND claimed_by IS NOT NULL',
    );
    return rows.map((r) => r.claimed_by);
  }

  /**
   * Claims for this process the unfinished rows that nobody claimed or that `orphaned` processes
   * claimed (oldest first, at most `limit`). On PostgreSQL rows another instance is claiming at this
   * moment are skipped (`SKIP LOCKED`) and re-checked once it committed, so each row is claimed once.
   */
  async claimOrphans(orphaned: readonly string[], limit = 500): Promise<PendingDelivery[]> {
    const claimers = orphaned.length > 0 ? ` OR claimed_by IN (${placeholdersFor(orphaned)})` : '';
    const lock = this.sql.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    const rows = await this.sql.all<{ id: number; channel_id: number; payload: string }>(
      `UPDATE alert_outbox SET claimed_by = ? WHERE id IN (
         SELECT id FROM alert_outbox
         WHERE finished_at IS NULL AND (claimed_by IS NULL${claimers})
         ORDER BY id LIMIT ? ${lock})
       RETURNING id, channel_id, payload`,
      [this.self.token, ...orphaned, limit],
    );
    return rows
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map((row) => ({
        outboxId: Number(row.id),
        channelId: Number(row.channel_id),
        alert: JSON.parse(row.payload) as StoredAlert,
      }));
  }

  /** Marks a row finished; `error` is null when the receiver accepted it. */
  async finish(outboxId: number, at: number, error: string | null): Promise<void> {
    await this.sql.run(
      'UPDATE alert_outbox SET finished_at = ?, error = ? WHERE id = ? AND finished_at IS NULL',
      [at, error, outboxId],
    );
  }

  /** Deletes rows finished before `before`; returns how many. */
  async pruneFinished(before: number): Promise<number> {
    return (await this.sql.run('DELETE FROM alert_outbox WHERE finished_at < ?', [before])).changes;
  }
}
