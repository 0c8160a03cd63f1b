/**
 * Failed sign-in attempts per client address in a sliding window. Once `limit` failures fall inside
 * the window, every further attempt from that address is refused until the oldest ages out.
 * Successful sign-ins are not counted, so a legitimate user's own sign-ins never lock them out,
 * and they do not reset the count either (no interleaving of guesses with a known password).
 * Attempts still being checked hold a place too (`begin`/`settle`): otherwise many guesses sent at
 * once would all pass the check before the first failure is recorded.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly limit = 5,
    private readonly windowMs = 60_000,
  ) {}

  /** Seconds to wait before the next attempt, or 0 when one may be made now. */
  retryAfterSeconds(key: string, now: number): number {
    const recent = this.recent(key, now);
    if (recent.length < this.limit) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - this.limit] + this.windowMs - now) / 1000));
  }

  /**
   * Reserves a place for an attempt: 0 when it may go ahead (it then counts until `settle`), else
   * the seconds to wait. A place held only by attempts in flight frees within a second or so.
   */
  begin(key: string, now: number): number {
    const wait = this.retryAfterSeconds(key, now);
    if (wait > 0) return wait;
    const pending = this.inFlight.get(key) ?? 0;
    if (this.recent(key, now).length + pending >= this.limit) return 1;
    this.inFlight.set(key, pending + 1);
    return 0;
  }

  /** Ends an attempt `begin` let through: a failure counts for the window, a success frees its place. */
  settle(key: string, failed: boolean, now: number): void {
    const pending = (this.inFlight.get(key) ?? 1) - 1;
    if (pending > 0) this.inFlight.set(key, pending);
    else this.inFlight.delete(key);
    if (failed) this.recordFailure(key, now);
  }

  recordFailure(key: string, now: number): void {
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.set(key, recent);
  }

  /** Drops addresses with nothing in the window, so memory stays bounded by recent attackers. */
  sweep(now: number): void {
    for (const key of this.failures.keys()) {
      if (this.recent(key, now).length === 0) this.failures.delete(key);
    }
  }

  private recent(key: string, now: number): number[] {
    const kept = (this.failures.get(key) ?? []).filter((at) => at > now - this.windowMs);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }
}
