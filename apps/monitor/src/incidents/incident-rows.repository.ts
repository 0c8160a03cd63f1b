import { connectionOf, type SyncTx } from '../core/database/tx';

/** An incident as backup and restore carry it (times in ms). */
export interface IncidentRecord {
  sensorId: number;
  started_at: number;
  resolved_at: number | null;
  cause: string;
  acknowledged: boolean;
  acknowledged_by: string | null;
  acknowledged_at: number | null;
  note: string;
  reconstructed: boolean;
}

/*
 * The incidents' rows as backup and restore read and write them, on a connection of their own
 * (the backup's snapshot, the restore worker's). Nest-free; rows stream one at a time.
 */

interface Row {
  sensor_id: number;
  started_at: number;
  resolved_at: number | null;
  cause: string;
  acknowledged: number;
  acknowledged_by: string | null;
  acknowledged_at: number | null;
  note: string;
  reconstructed: number;
}

/** Incidents open or resolved at or after `resolvedSince`, oldest first, one at a time. */
export function* exportIncidents(tx: SyncTx, resolvedSince: number): Generator<IncidentRecord> {
  const rows = connectionOf(tx)
    .prepare('SELECT * FROM incidents WHERE resolved_at IS NULL OR resolved_at >= ? ORDER BY started_at, id')
    .iterate(resolvedSince) as IterableIterator<Row>;
  for (const i of rows)
    yield {
      sensorId: i.sensor_id,
      started_at: i.started_at,
      resolved_at: i.resolved_at,
      cause: i.cause,
      acknowledged: i.acknowledged === 1,
      acknowledged_by: i.acknowledged_by,
      acknowledged_at: i.acknowledged_at,
      note: i.note,
      reconstructed: i.reconstructed === 1,
    };
}

/** Deletes every incident and answers a function that stores one (prepared once, for millions). */
export function replaceIncidents(tx: SyncTx): (incident: IncidentRecord) => void {
  const db = connectionOf(tx);
  db.prepare('DELETE FROM incidents').run();
  const insert = db.prepare(
    `INSERT INTO incidents (sensor_id, started_at, resolved_at, cause, acknowledged, acknowledged_by,
       acknowledged_at, note, reconstructed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return (i) =>
    insert.run(
      i.sensorId,
      i.started_at,
      i.resolved_at,
      i.cause,
      i.acknowledged ? 1 : 0,
      i.acknowledged_by,
      i.acknowledged_at,
      i.note,
      i.reconstructed ? 1 : 0,
    );
}
