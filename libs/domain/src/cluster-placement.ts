import { activeMembers, type MemberRow, ownerOf } from './cluster-membership';

/**
 * Where a sensor is placed while the instances may disagree about the members (issue 25). Each
 * instance reads the member list once a period, so for up to a period after a member activates,
 * dies or leaves, some instances still hold the old list. A sensor created, changed or found at a
 * start in that time is probed at once only if every list another instance may hold gives it to
 * the same owner; otherwise the owner under the oldest such list probes it, and hands it over as
 * rebalancing does (it stops, says so, and the new owner takes over on its old schedule).
 */

/** The rows as they stood at `at`: instances registered later absent, later clean stops undone. */
function rowsAt(rows: readonly MemberRow[], at: number): MemberRow[] {
  return rows
    .filter((r) => r.startedAt <= at)
    .map((r) => (r.stoppedAt !== null && r.stoppedAt > at ? { ...r, stoppedAt: null } : r));
}

/**
 * Every member list the instances held at some moment in [from, to] (the database's clock), as
 * computed from one reading of the rows; oldest first, consecutive repeats once.
 */
export function viewsBetween(
  rows: readonly MemberRow[],
  from: number,
  to: number,
  deadAfterMs: number,
  activationMs: number,
): string[][] {
  const times = new Set([from, to]);
  for (const r of rows)
    for (const t of [r.startedAt, r.startedAt + activationMs, r.lastSeenAt + deadAfterMs + 1, r.stoppedAt])
      if (t !== null && t > from && t < to) times.add(t);
  const views: string[][] = [];
  for (const t of [...times].sort((a, b) => a - b)) {
    const view = activeMembers(rowsAt(rows, t), t, deadAfterMs, activationMs);
    if (views.at(-1)?.join('\n') !== view.join('\n')) views.push(view);
  }
  return views;
}

/**
 * For a sensor this instance owns under its own list `mine`: the member whose release it must wait
 * for before probing (the owner under the oldest non-empty list of `views`, still a member), or null when
 * it may probe at once (every list agrees, this instance owned it first, or the first owner is gone
 * and probes nothing).
 */
export function handOverFrom(
  sensorId: number,
  self: string,
  mine: readonly string[],
  views: readonly (readonly string[])[],
): string | null {
  const oldest = views.find((view) => view.length > 0);
  const first = oldest ? ownerOf(sensorId, oldest) : null;
  if (first === null || first === self || !mine.includes(first)) return null;
  return first;
}
