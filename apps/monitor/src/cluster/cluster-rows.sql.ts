import type { MemberRow } from '@monitor/domain';

/** A membership row as the cluster view shows it. */
export interface InstanceRow extends MemberRow {
  version: string;
  stoppedAt: number | null;
}

/** The database's clock in milliseconds: every instance compares heartbeats on the same clock. */
export const DB_NOW = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

export interface RawInstanceRow {
  name: string | null;
  token: string;
  version: string;
  started_at: number | string;
  last_seen_at: number | string;
  stopped_at: number | string | null;
  now: number | string;
}

/**
 * Every registered instance and the database's time of reading (PostgreSQL; `query` runs on any
 * session: the instance's own, or the doctor's read-only one).
 */
export async function readInstances(
  query: (sql: string) => Promise<RawInstanceRow[]>,
): Promise<{ now: number; rows: InstanceRow[] }> {
  const rows = await query(
    `SELECT name, token, version, started_at, last_seen_at, stopped_at, ${DB_NOW} AS now
     FROM cluster_instances RIGHT JOIN (SELECT 1) AS clock ON true ORDER BY name`,
  );
  return {
    now: Number(rows[0].now),
    rows: rows.flatMap((r) =>
      r.name === null
        ? []
        : [
            {
              name: r.name,
              token: r.token,
              version: r.version,
              startedAt: Number(r.started_at),
              lastSeenAt: Number(r.last_seen_at),
              stoppedAt: r.stopped_at === null ? null : Number(r.stopped_at),
            },
          ],
    ),
  };
}
