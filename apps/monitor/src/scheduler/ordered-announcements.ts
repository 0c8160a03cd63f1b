/**
 * A sensor's events go out once what they tell of is committed, and in the order of its steps: a
 * state change's own transaction may commit before the batch holding the sensor's previous result.
 */
export class OrderedAnnouncements {
  /** Per sensor, its latest announcement not yet out. */
  private readonly latest = new Map<number, Promise<void>>();

  constructor(private readonly failed: (id: number, error: Error) => void) {}

  /** Runs `announce` once `committed` resolved and the sensor's earlier announcements are out. */
  after(id: number, committed: Promise<void> | null, announce: () => void): Promise<void> {
    const done = Promise.all([this.latest.get(id), committed]).then(() => {
      try {
        announce();
      } catch (error) {
        this.failed(id, error as Error);
      }
    });
    this.latest.set(id, done);
    void done.then(() => {
      if (this.latest.get(id) === done) this.latest.delete(id);
    });
    return done;
  }
}
