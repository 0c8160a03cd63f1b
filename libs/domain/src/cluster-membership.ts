/**
 * Which instance probes which sensor when several share one database (issue 16). Every instance
 * computes the same answer from the same member list, so no sensor needs a stored owner: rendezvous
 * (highest random weight) hashing gives each sensor to the member with the highest hash of
 * (member, sensor). A member joining takes about 1/n of the sensors from the others and a member
 * leaving hands its own to the rest; no other sensor moves.
 */

/** A registered instance as the membership table holds it (times in ms, the database's clock). */
export interface MemberRow {
  name: string;
  token: string;
  startedAt: number;
  lastSeenAt: number;
  /** Set by a clean stop: the instance left and handed its sensors over. */
  stoppedAt: number | null;
}

/** 32-bit FNV-1a of the text, finished with murmur3's avalanche so nearby inputs spread. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The member that owns the sensor, or null when there is none. Ties go to the smaller name. */
export function ownerOf(sensorId: number, members: readonly string[]): string | null {
  let best: string | null = null;
  let bestWeight = -1;
  for (const member of members) {
    const weight = hash32(`${member}\u0000${sensorId}`);
    if (weight > bestWeight || (weight === bestWeight && best !== null && member < best)) {
      best = member;
      bestWeight = weight;
    }
  }
  return best;
}

/** How many of the sensors each member owns (every member listed, with 0 when it owns none). */
export function loadOf(sensorIds: Iterable<number>, members: readonly string[]): Map<string, number> {
  const load = new Map(members.map((m) => [m, 0]));
  for (const id of sensorIds) {
    const owner = ownerOf(id, members);
    if (owner !== null) load.set(owner, (load.get(owner) ?? 0) + 1);
  }
  return load;
}

/**
 * The members that share the work at `now`: alive (heartbeat within `deadAfterMs`) and active (joined
 * at least `activationMs` ago). The activation delay lets every instance hear of a newcomer before it
 * takes sensors, so the losing side has stopped before the newcomer starts (see firstSlot).
 */
export function activeMembers(
  rows: readonly MemberRow[],
  now: number,
  deadAfterMs: number,
  activationMs: number,
): string[] {
  const alive = rows.filter((r) => isAlive(r, now, deadAfterMs));
  const active = alive.filter((r) => r.startedAt + activationMs <= now);
  // Nobody to hand over from (a first start, or all starting together): no reason to wait.
  return (active.length > 0 ? active : alive).map((r) => r.name).sort();
}

export const isAlive = (row: MemberRow, now: number, deadAfterMs: number): boolean =>
  row.stoppedAt === null && now - row.lastSeenAt <= deadAfterMs;

/**
 * A taken-over sensor's first run: the first slot of its old schedule (its last run plus whole
 * intervals) at or after `freeSince`, the time from which the old owner surely probed nothing.
 * Staying on the old owner's grid means the new owner never repeats a slot the old one may have
 * probed, however late the old one's results were stored. Without a known last run, one interval
 * after `freeSince`: the old owner may have run it once just before, unseen.
 */
export function firstSlot(lastRunAt: number | null, intervalMs: number, freeSince: number): number {
  if (lastRunAt === null) return freeSince + intervalMs;
  return lastRunAt + Math.max(1, Math.ceil((freeSince - lastRunAt) / intervalMs)) * intervalMs;
}
