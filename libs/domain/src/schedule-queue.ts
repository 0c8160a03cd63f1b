/**
 * The scheduler's one timing structure: a binary min-heap of (due time, sensor) entries. A sensor
 * that is rescheduled or removed leaves its old entry behind with a stale generation; stale
 * entries are skipped when they surface, so every operation stays O(log n).
 */
interface Entry {
  due: number;
  id: number;
  generation: number;
}

export class ScheduleQueue {
  private readonly heap: Entry[] = [];
  private readonly generations = new Map<number, number>();
  /** One counter for all entries, never reset: a removed entry can never match a later one. */
  private lastGeneration = 0;

  get size(): number {
    return this.generations.size;
  }

  has(id: number): boolean {
    return this.generations.has(id);
  }

  /** Schedules (or reschedules) `id` at `due`, replacing any earlier entry. */
  schedule(id: number, due: number): void {
    const generation = ++this.lastGeneration;
    this.generations.set(id, generation);
    this.push({ due, id, generation });
  }

  remove(id: number): void {
    this.generations.delete(id);
  }

  /** The earliest due time, or null when nothing is scheduled. */
  nextDue(): number | null {
    this.dropStale();
    return this.heap.length > 0 ? this.heap[0].due : null;
  }

  /** Removes and returns every entry due at or before `now`, earliest first. */
  takeDue(now: number): { id: number; due: number }[] {
    const taken: { id: number; due: number }[] = [];
    for (;;) {
      this.dropStale();
      const top = this.heap[0];
      if (!top || top.due > now) return taken;
      this.pop();
      // Taken entries are no longer scheduled until the caller schedules their next run.
      this.generations.delete(top.id);
      taken.push({ id: top.id, due: top.due });
    }
  }

  private dropStale(): void {
    while (this.heap.length > 0 && this.generations.get(this.heap[0].id) !== this.heap[0].generation)
      this.pop();
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent].due <= heap[i].due) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop() as Entry;
    if (heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && heap[left].due < heap[smallest].due) smallest = left;
      if (right < heap.length && heap[right].due < heap[smallest].due) smallest = right;
      if (smallest === i) return;
      [heap[smallest], heap[i]] = [heap[i], heap[smallest]];
      i = smallest;
    }
  }
}

/** Fixed-rate: the next run is one interval after the previous due time, skipping missed slots. */
export function nextDueAfter(due: number, intervalMs: number, now: number): number {
  const next = due + intervalMs;
  return next > now ? next : now + intervalMs - ((now - due) % intervalMs);
}
