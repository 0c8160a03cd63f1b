import { humanDuration } from '../alert-message';

/** Missed deadlines recorded in one pass at most (a process that stood still for days). */
const MOST_PER_PASS = 100;

interface Watch {
  /** The last push, or the moment watching began (start, resume, takeover): pushers could not reach a stopped server. */
  since: number;
  deadline: number;
  intervalMs: number;
  graceMs: number;
}

/** One missed deadline: a failure to record, stamped at the deadline. */
export interface MissedPush {
  id: number;
  at: number;
  message: string;
}

export const noPushMessage = (silentMs: number): string => `no push received for ${humanDuration(silentMs)}`;

/**
 * The deadlines of push sensors. A sensor is due interval + grace after its last push (or after
 * watching began); a missed deadline is a failure, and the next one follows an interval later while
 * the sensor stays silent, so the failure streak grows like any probe's. Each push starts over.
 */
export class PushDeadlines {
  private readonly watched = new Map<number, Watch>();

  get size(): number {
    return this.watched.size;
  }

  has(id: number): boolean {
    return this.watched.has(id);
  }

  /** Starts (or restarts) watching from `from`. */
  watch(id: number, from: number, intervalSeconds: number, graceSeconds: number): void {
    const intervalMs = intervalSeconds * 1000;
    const graceMs = graceSeconds * 1000;
    this.watched.set(id, { since: from, deadline: from + intervalMs + graceMs, intervalMs, graceMs });
  }

  /**
   * New interval or grace: the silence so far still counts, but a deadline the change would put
   * in the past (or one already missed) comes one new interval from now, never backdated.
   */
  retime(id: number, intervalSeconds: number, graceSeconds: number, now: number): void {
    const watch = this.watched.get(id);
    if (!watch) return;
    const overdue = watch.deadline > watch.since + watch.intervalMs + watch.graceMs;
    this.watch(id, watch.since, intervalSeconds, graceSeconds);
    const next = this.watched.get(id)!;
    if (overdue || next.deadline <= now) next.deadline = now + next.intervalMs;
  }

  /** A push arrived: the next deadline is counted from it. False when the sensor is not watched. */
  pushed(id: number, at: number): boolean {
    const watch = this.watched.get(id);
    if (!watch) return false;
    if (at < watch.since) return true;
    watch.since = at;
    watch.deadline = at + watch.intervalMs + watch.graceMs;
    return true;
  }

  drop(id: number): void {
    this.watched.delete(id);
  }

  /** Every deadline passed by `now`, oldest first per sensor; each is moved on by one interval. */
  takeMissed(now: number): MissedPush[] {
    const missed: MissedPush[] = [];
    for (const [id, watch] of this.watched) {
      for (let n = 0; watch.deadline <= now && n < MOST_PER_PASS; n++) {
        missed.push({ id, at: watch.deadline, message: noPushMessage(watch.deadline - watch.since) });
        watch.deadline += watch.intervalMs;
      }
      // Still behind after the cap: the next deadline is the first one still ahead.
      if (watch.deadline <= now)
        watch.deadline = now + watch.intervalMs - ((now - watch.deadline) % watch.intervalMs);
    }
    return missed;
  }
}
