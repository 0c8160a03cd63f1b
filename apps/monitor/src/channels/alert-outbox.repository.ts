import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { sqlClientFor, type SqlClient, type SqlExecutor } from '../core/database/sql-client';
import type { AlertEvent } from '../core/events/event-bus';

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
 * and marked finished once their delivery has ended (delivered, or given up after its attempts);
 * rows never finished are sent again at the next start.
 */
@Injectable()
export class AlertOutboxRepository {
  constructor(private readonly dataSource: DataSource) {}

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
        `INSERT INTO alert_outbox (sensor_id, channel_id, kind, payload, created_at)
         SELECT CAST(? AS INTEGER), CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT)
         WHERE EXISTS (SELECT 1 FROM channels WHERE id = ?) AND EXISTS (SELECT 1 FROM sensors WHERE id = ?)
         RETURNING id`,
        [alert.sensor.id, channelId, alert.kind, payload, at, channelId, alert.sensor.id],
      );
      if (row) rows.push({ channelId, outboxId: Number(row.id) });
    }
    return rows;
  }

  /** Every row whose delivery never finished, oldest first. */
  async unfinished(): Promise<PendingDelivery[]> {
    const rows = await this.sql.all<{ id: number; channel_id: number; payload: string }>(
      'SELECT id, channel_id, payload FROM alert_outbox WHERE finished_at IS NULL ORDER BY id',
    );
    return rows.map((row) => ({
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
