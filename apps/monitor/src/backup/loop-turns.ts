/**
 * Gives the event loop a turn once `sliceMs` of work has gone by since the last one, so a long
 * loop of small synchronous steps (rows to encode, sensors to reconcile) never holds requests
 * and probes up for longer than that. Awaited microtasks alone are no turn: they run before any
 * I/O, so only setImmediate lets waiting requests in.
 */
export class LoopTurns {
  private since = performance.now();

  constructor(private readonly sliceMs = 20) {}

  /** True when the caller should await `turn()` now. */
  due(): boolean {
    return performance.now() - this.since >= this.sliceMs;
  }

  async turn(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }

  /** A turn when one is due. */
  async maybe(): Promise<void> {
    if (this.due()) await this.turn();
  }
}
