import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { sqliteHandle } from '../core/database/sqlite-handle';
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
  private statements?: {
    insert: Database.Statement;
    unfinished: Database.Statement;
    finish: Database.Statement;
    prune: Database.Statement;
  };

  constructor(private readonly dataSource: DataSource) {}

  private prepared() {
    const db = sqliteHandle(this.dataSource);
    this.statements ??= {
      // A channel or sensor deleted meanwhile gets no row rather than failing the state change.
      insert: db.prepare(
        `INSERT INTO alert_outbox (sensor_id, channel_id, kind, payload, created_at)
         SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM channels WHERE id = ?)
           AND EXISTS (SELECT 1 FROM sensors WHERE id = ?)`,
      ),
      unfinished: db.prepare(
        'SELECT id, channel_id, payload FROM alert_outbox WHERE finished_at IS NULL ORDER BY id',
      ),
      finish: db.prepare(
        'UPDATE alert_outbox SET finished_at = ?, error = ? WHERE id = ? AND finished_at IS NULL',
      ),
      prune: db.prepare('DELETE FROM alert_outbox WHERE finished_at < ?'),
    };
    return this.statements;
  }

  /**
   * Stores an alert for each of the channels, inside the caller's synchronous transaction on the
   * shared connection. Returns the rows written, one per channel that still exists.
   */
  addNow(alert: StoredAlert, channelIds: number[], at: number): AlertEvent['deliveries'] {
    const { insert } = this.prepared();
    const payload = JSON.stringify(alert);
    const rows: AlertEvent['deliveries'] = [];
    for (const channelId of new Set(channelIds)) {
      const { changes, lastInsertRowid } = insert.run(
        alert.sensor.id,
        channelId,
        alert.kind,
        payload,
        at,
        channelId,
        alert.sensor.id,
      );
      if (changes === 1) rows.push({ channelId, outboxId: Number(lastInsertRowid) });
    }
    return rows;
  }

  /** Every row whose delivery never finished, oldest first. */
  unfinished(): PendingDelivery[] {
    return (this.prepared().unfinished.all() as { id: number; channel_id: number; payload: string }[]).map(
      (row) => ({
        outboxId: row.id,
        channelId: row.channel_id,
        alert: JSON.parse(row.payload) as StoredAlert,
      }),
    );
  }

  /** Marks a row finished; `error` is null when the receiver accepted it. */
  finish(outboxId: number, at: number, error: string | null): void {
    this.prepared().finish.run(at, error, outboxId);
  }

  /** Deletes rows finished before `before`; returns how many. */
  pruneFinished(before: number): number {
    return this.prepared().prune.run(before).changes;
  }
}
