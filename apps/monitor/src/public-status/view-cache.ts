/*
 * A per-key cache of computed views: a view is reused for `maxAgeMs`, concurrent misses share one
 * computation, and an invalidation drops what it touches at once (a computation already running
 * still answers its own waiters, but is never reused). A view that merely aged keeps being answered
 * while its successor is computed, so visitors never queue behind the periodic recomputation; after
 * an invalidation they wait for the new view. Nest-free.
 */

interface Slot<V> {
  at: number;
  promise: Promise<V | null>;
  /** The sensors the view shows; null while it is computed (any sensor may then concern it). */
  sensors: ReadonlySet<number> | null;
  value: V | null;
  /** The aged view this one replaces, answered until it is computed. */
  stale: V | null;
}

export class ViewCache<V> {
  private readonly slots = new Map<string, Slot<V>>();

  constructor(
    private readonly compute: (key: string) => Promise<V | null>,
    private readonly sensorsOf: (view: V) => ReadonlySet<number>,
    private readonly now: () => number,
    private readonly maxAgeMs: number,
  ) {}

  get(key: string): Promise<V | null> {
    const now = this.now();
    const slot = this.slots.get(key);
    if (slot?.sensors === null) return slot.stale === null ? slot.promise : Promise.resolve(slot.stale);
    if (slot && now >= slot.at && now - slot.at < this.maxAgeMs) return slot.promise;
    const fresh: Slot<V> = {
      at: now,
      promise: Promise.resolve(null),
      sensors: null,
      value: null,
      stale: slot?.value ?? null,
    };
    const forget = () => {
      if (this.slots.get(key) === fresh) this.slots.delete(key);
    };
    fresh.promise = this.compute(key).then(
      (view) => {
        // Unknown keys are not kept: anyone can ask for any number of them.
        if (view === null) forget();
        else {
          fresh.sensors = this.sensorsOf(view);
          fresh.value = view;
          fresh.stale = null;
        }
        return view;
      },
      (error: unknown) => {
        forget();
        throw error;
      },
    );
    // A refresh nobody waits for (the aged view answered) must not fail as an unhandled rejection.
    fresh.promise.catch(() => undefined);
    this.slots.set(key, fresh);
    return fresh.stale === null ? fresh.promise : Promise.resolve(fresh.stale);
  }

  invalidateAll(): void {
    this.slots.clear();
  }

  /** Drops every view showing the sensor, and every one still being computed. */
  invalidateSensor(sensorId: number): void {
    for (const [key, slot] of this.slots) {
      if (slot.sensors === null || slot.sensors.has(sensorId)) this.slots.delete(key);
    }
  }

  get size(): number {
    return this.slots.size;
  }
}
