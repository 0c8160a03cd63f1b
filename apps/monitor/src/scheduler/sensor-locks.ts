/** One async lock per sensor: work for a sensor runs strictly one piece after another. */
export class SensorLocks {
  private readonly tails = new Map<number, Promise<void>>();

  async run<T>(id: number, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(id) ?? Promise.resolve();
    const { promise: tail, resolve: release } = Promise.withResolvers<void>();
    this.tails.set(id, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(id) === tail) this.tails.delete(id);
    }
  }
}
