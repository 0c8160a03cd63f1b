import type { SensorRuntimeColumns } from '../sensors/sensor-runtime-columns';

/** The columns a restart or a reader without live state depends on: written whenever they change. */
const sameState = (a: SensorRuntimeColumns, b: SensorRuntimeColumns): boolean =>
  a.status === b.status &&
  a.streak === b.streak &&
  a.statusChangedAt === b.statusChangedAt &&
  a.lastAlertAt === b.lastAlertAt;

/**
 * Which sensors' runtime columns the result batch writes. A restart rebuilds a sensor's live state
 * from its stored results, incidents and last alert time, never from these columns; they serve
 * readers without live state. So a batch writes them when the state in them changed (status,
 * streak, status change, last alert), and otherwise (only the last check's message, time and
 * latency moved) at most once per `refreshMs` per sensor and at a clean stop: rewriting every
 * sensor's row with every batch was most of the bytes written per probe.
 */
export class RuntimeColumnsThrottle {
  private readonly written = new Map<number, { columns: SensorRuntimeColumns; at: number }>();
  private readonly kept = new Map<number, SensorRuntimeColumns>();

  constructor(private readonly refreshMs: number) {}

  /** True when the columns go out with the next batch; false when they are kept back for now. */
  due(id: number, columns: SensorRuntimeColumns, now: number): boolean {
    const last = this.written.get(id);
    if (last && sameState(last.columns, columns) && now - last.at < this.refreshMs) {
      this.kept.set(id, columns);
      return false;
    }
    this.kept.delete(id);
    return true;
  }

  /** A batch with these columns committed. */
  wrote(sensors: ReadonlyMap<number, SensorRuntimeColumns>, now: number): void {
    for (const [id, columns] of sensors) this.written.set(id, { columns, at: now });
  }

  /** Written elsewhere (a state change's own transaction): the next columns go out in full. */
  forget(id: number): void {
    this.written.delete(id);
    this.kept.delete(id);
  }

  /** Every kept-back set of columns, handed out once (a clean stop writes them). */
  takeKept(): Map<number, SensorRuntimeColumns> {
    const kept = new Map(this.kept);
    this.kept.clear();
    return kept;
  }
}
