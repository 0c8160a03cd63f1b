import type { SqlExecutor } from '../core/database/sql-client';
import { insertRows, storedBoolean } from '../core/database/stored-values';

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
 * The incidents' rows as backup and restore read and write them, in one SQL text for both
 * backends (the backup's snapshot, the restore's transaction). Nest-free; read a page at a time.
 */

/** An `incidents` row as both backends return it (booleans as 0/1 or true/false). */
export interface IncidentRow {
  id: number;
  sensor_id: number;
  started_at: number;
  resolved_at: number | null;
  cause: string;
  acknowledged: unknown;
  acknowledged_by: string | null;
  acknowledged_at: number | null;
  note: string;
  reconstructed: unknown;
}

const PAGE_ROWS = 2000;

/** Incidents open or resolved at or after `resolvedSince`, oldest first, a page at a time. */
export async function* exportIncidents(
  tx: SqlExecutor,
  resolvedSince: number,
): AsyncGenerator<IncidentRecord> {
  let after: { started_at: number; id: number } | null = null;
  for (;;) {
    const page: IncidentRow[] = await tx.all<IncidentRow>(
      `SELECT id, sensor_id, started_at, resolved_at, cause, acknowledged, acknowledged_by, acknowledged_at, note,
         reconstructed FROM incidents
       WHERE (resolved_at IS NULL OR resolved_at >= ?) AND (started_at > ? OR (started_at = ? AND id > ?))
       ORDER BY started_at, id LIMIT ?`,
      [
        resolvedSince,
        after?.started_at ?? Number.MIN_SAFE_INTEGER,
        after?.started_at ?? Number.MIN_SAFE_INTEGER,
        after?.id ?? 0,
        PAGE_ROWS,
      ],
    );
    for (const i of page)
      yield {
        sensorId: i.sensor_id,
        started_at: i.started_at,
        resolved_at: i.resolved_at,
        cause: i.cause,
        acknowledged: storedBoolean(i.acknowledged),
        acknowledged_by: i.acknowledged_by,
        acknowledged_at: i.acknowledged_at,
        note: i.note,
        reconstructed: storedBoolean(i.reconstructed),
      };
    if (page.length < PAGE_ROWS) return;
    after = page[page.length - 1];
  }
}

/** Deletes every incident and answers a function that stores a batch of them. */
export async function replaceIncidents(
  tx: SqlExecutor,
): Promise<(incidents: readonly IncidentRecord[]) => Promise<void>> {
  await tx.run('DELETE FROM incidents');
  const columns = [
    'sensor_id',
    'started_at',
    'resolved_at',
    'cause',
    'acknowledged',
    'acknowledged_by',
    'acknowledged_at',
    'note',
    'reconstructed',
  ];
  return (incidents) =>
    insertRows(
      tx,
      'incidents',
      columns,
      incidents.map((i) => [
        i.sensorId,
        i.started_at,
        i.resolved_at,
        i.cause,
        i.acknowledged,
        i.acknowledged_by,
        i.acknowledged_at,
        i.note,
        i.reconstructed,
      ]),
    );
}
