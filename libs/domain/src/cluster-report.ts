import type { ClusterInstance, ClusterView, DoctorCheck } from '@monitor/contracts';
import { activeMembers, isAlive, loadOf, type MemberRow } from './cluster-membership';

/** A membership row with what the view shows besides liveness. */
export interface ReportedRow extends MemberRow {
  version: string;
}

/** How long a newcomer waits before it takes sensors: the heartbeat period, as the server uses it. */
export const activationMs = (deadAfterMs: number): number => Math.max(200, Math.round(deadAfterMs / 5));

/**
 * The cluster as the instances see it from the membership rows alone (for `monitor doctor`, which
 * runs no instance): each instance alive or gone, and the enabled sensors each active one owns.
 */
export function clusterViewOf(
  rows: readonly ReportedRow[],
  now: number,
  deadAfterMs: number,
  enabledSensorIds: Iterable<number>,
  self: string,
): ClusterView {
  const load = loadOf(enabledSensorIds, activeMembers(rows, now, deadAfterMs, activationMs(deadAfterMs)));
  return {
    mode: 'cluster',
    self,
    dead_after_s: deadAfterMs / 1000,
    instances: [...rows]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((row): ClusterInstance => {
        const alive = isAlive(row, now, deadAfterMs);
        return {
          name: row.name,
          version: row.version,
          started_at: new Date(row.startedAt).toISOString(),
          last_seen_at: new Date(row.lastSeenAt).toISOString(),
          alive,
          gone: alive ? null : row.stoppedAt !== null ? 'stopped' : 'dead',
          sensors: load.get(row.name) ?? 0,
        };
      }),
  };
}

const sensorsText = (n: number) => `${n} sensor${n === 1 ? '' : 's'}`;

/**
 * The doctor's `cluster` check: a problem while an instance is listed as dead (it stopped answering
 * without leaving; an administrator removes it once it is understood). `self` is marked "this".
 */
export function clusterCheck(view: ClusterView | null): DoctorCheck {
  const name = 'cluster';
  if (view === null || view.mode === 'single') {
    const only = view?.instances[0];
    return {
      name,
      ok: true,
      detail: only
        ? `single instance (SQLite): ${only.name} (${sensorsText(only.sensors)})`
        : 'single instance (SQLite)',
    };
  }
  if (view.instances.length === 0)
    return { name, ok: true, detail: 'cluster on PostgreSQL: no instance registered' };
  const described = view.instances.map((i) => {
    if (i.gone === 'dead') return `${i.name} dead since ${i.last_seen_at}`;
    if (i.gone === 'stopped') return `${i.name} stopped at ${i.last_seen_at}`;
    return i.name === view.self ? `${i.name} (this, ${sensorsText(i.sensors)})` : `${i.name} (${i.sensors})`;
  });
  const count = view.instances.length;
  const dead = view.instances.filter((i) => i.gone === 'dead').length;
  return {
    name,
    ok: dead === 0,
    detail:
      `cluster of ${count} instance${count === 1 ? '' : 's'}: ${described.join(', ')}` +
      (dead > 0
        ? `; ${dead === 1 ? 'the dead instance is' : `${dead} dead instances are`} listed until an administrator removes ${dead === 1 ? 'it' : 'them'}`
        : ''),
  };
}
