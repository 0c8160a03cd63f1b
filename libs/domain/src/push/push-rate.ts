/** Pushes one token may make in one second; more are refused (429). */
export const PUSHES_PER_SECOND = 10;
/** Entries idle this long are dropped, so memory stays bounded by the tokens pushing now. */
const IDLE_MS = 2000;
const SWEEP_EVERY = 1024;

interface Window {
  start: number;
  count: number;
}

/**
 * Per-token limit in fixed one-second windows, in memory per process. Answers null when the push
 * may go on, else the seconds to wait (Retry-After).
 */
export class PushRateLimit {
  private readonly windows = new Map<string, Window>();
  private calls = 0;

  constructor(private readonly perSecond = PUSHES_PER_SECOND) {}

  get size(): number {
    return this.windows.size;
  }

  take(key: string, now: number): number | null {
    if (++this.calls % SWEEP_EVERY === 0) this.sweep(now);
    const window = this.windows.get(key);
    if (!window || now - window.start >= 1000 || now < window.start) {
      this.windows.set(key, { start: now, count: 1 });
      return null;
    }
    if (window.count >= this.perSecond) return Math.max(1, Math.ceil((window.start + 1000 - now) / 1000));
    window.count++;
    return null;
  }

  /** Drops entries whose window ended a while ago. */
  sweep(now: number): void {
    for (const [key, window] of this.windows) if (now - window.start >= IDLE_MS) this.windows.delete(key);
  }
}
