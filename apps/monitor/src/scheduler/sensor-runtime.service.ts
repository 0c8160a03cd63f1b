import { Inject, Injectable } from '@nestjs/common';
import {
  type Incident,
  type ProbeResult,
  RECENT_OUTCOMES,
  type SensorStatus,
  type SparkPoint,
} from '@monitor/contracts';
import { Excuse, INITIAL_STATE, rebuildState, SensorEvent, transition, Transition } from '@monitor/domain';
import type { ProbeOutcome } from '@monitor/probes';
import { Clock } from '../core/clock/clock';
import { EventBus } from '../core/events/event-bus';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { HistoryRepository } from '../history/history.repository';
import { ResultWriter } from '../history/result-writer.service';
import { IncidentsRepository } from '../incidents/incidents.repository';
import { SensorsRepository } from '../sensors/sensors.repository';
import { MaintenanceService } from '../maintenance/maintenance.service';
import type { RuntimeEntry } from './runtime-entry';
import type { SensorDefinition } from '../sensors/sensor-definition';
import { OrderedAnnouncements } from './ordered-announcements';
import { outcomeColumns, resultView } from './run-probe';
import { entryOf, outcomeChar, parentsFirst, SPARKLINE_LENGTH, storedHistories } from './sensor-history';
import { SensorLocks } from './sensor-locks';
import { StateChangeWriter, type WrittenChange } from './state-change-writer';

const iso = (ms: number) => new Date(ms).toISOString();

/** A result queued for storage, and its announcement once stored (see SensorRuntimeService.submit). */
export interface Submitted {
  announced: Promise<ProbeResult | null>;
}

/**
 * Every sensor's live state. Results go through the state machine under a per-sensor lock. A step
 * that opens or closes an incident or alerts is written at once in one transaction (result,
 * incident, runtime columns, alert outbox rows); other results wait in the result batch. Events
 * and alerts go out once what they tell of is committed, each sensor's in the order of its steps.
 */
@Injectable()
export class SensorRuntimeService {
  private readonly entries = new Map<number, RuntimeEntry>();
  private readonly locks = new SensorLocks();
  /** Counts changes to the set of definitions, so indexes over them know when to look again. */
  private definitionChanges = 0;
  private readonly announcements = new OrderedAnnouncements((id, error) =>
    this.logger.error({ sensor_id: id, error: error.message }, 'announcing a result failed'),
  );

  constructor(
    private readonly history: HistoryRepository,
    private readonly writer: ResultWriter,
    private readonly incidents: IncidentsRepository,
    private readonly sensors: SensorsRepository,
    private readonly changes: StateChangeWriter,
    private readonly maintenance: MaintenanceService,
    private readonly events: EventBus,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  get(id: number): RuntimeEntry | undefined {
    return this.entries.get(id);
  }

  all(): IterableIterator<RuntimeEntry> {
    return this.entries.values();
  }

  /** Grows with every definition added, replaced or removed (on any path: API, cluster, restore, file). */
  get definitionsVersion(): number {
    return this.definitionChanges;
  }

  /**
   * Rebuilds every sensor's state from stored results and incidents; announces nothing. Outages
   * that happened while stopped are reconstructed only for the sensors this instance probes: the
   * others' owners do that themselves.
   */
  async rebuild(
    definitions: SensorDefinition[],
    owned: (id: number) => boolean = () => true,
  ): Promise<{ reconstructed: number }> {
    this.entries.clear();
    this.definitionChanges++;
    return this.rebuildEntries(definitions, owned);
  }

  /**
   * Rebuilds some sensors' state from stored data, exactly as a start does: a sensor taken over
   * from another instance, or one whose incident another instance changed (acknowledged, paused).
   */
  async refresh(ids: readonly number[], owned: (id: number) => boolean): Promise<{ reconstructed: number }> {
    const definitions = ids.flatMap((id) => this.entries.get(id)?.definition ?? []);
    await this.writer.flushed();
    return this.rebuildEntries(definitions, owned);
  }

  private async rebuildEntries(
    definitions: SensorDefinition[],
    owned: (id: number) => boolean,
  ): Promise<{ reconstructed: number }> {
    const open = new Map((await this.incidents.allOpen()).map((i) => [i.sensorId, i]));
    const lastResolved = await this.incidents.lastResolved();
    const lastAlerts = new Map((await this.sensors.alertTimes()).map((r) => [r.id, r.last_alert_at]));
    const now = this.clock.now();
    const histories = await storedHistories(this.history, definitions, lastResolved);
    let reconstructed = 0;
    for (const definition of parentsFirst(definitions)) {
      const resolvedAt = lastResolved.get(definition.id) ?? null;
      const { history, recent } = histories.get(definition.id)!;
      const incident = open.get(definition.id);
      const rebuilt = rebuildState(
        {
          ...history,
          enabled: definition.enabled,
          openIncident: incident
            ? { id: incident.id, startedAt: incident.startedAt, acknowledged: incident.acknowledged }
            : null,
          lastResolvedAt: resolvedAt,
          lastAlertAt: lastAlerts.get(definition.id) ?? null,
        },
        { retries: definition.retries, reminderEvery: definition.reminderEvery },
        now,
        this.excuse(definition, now),
      );
      const state = rebuilt.state;
      if (rebuilt.reconstructed && state.incident) {
        if (owned(definition.id)) {
          const stored = await this.incidents.open(
            definition.id,
            rebuilt.reconstructed.startedAt,
            rebuilt.reconstructed.cause,
            true,
          );
          state.incident.id = stored.id;
          reconstructed++;
        } else state.incident = null;
      }
      const entry = entryOf(definition, state, recent);
      entry.definition = this.entries.get(definition.id)?.definition ?? definition;
      this.entries.set(definition.id, entry);
      this.definitionChanges++;
    }
    if (reconstructed > 0)
      this.logger.info({ reconstructed }, 'reconstructed outages that happened while stopped');
    return { reconstructed };
  }

  /** A sensor was created or changed: keep its state, take the new definition. */
  async define(definition: SensorDefinition): Promise<void> {
    const known = this.entries.get(definition.id);
    if (known) {
      known.definition = definition;
      this.definitionChanges++;
      return;
    }
    // A sensor that arrives with stored results (sample data, a restore) shows them at once.
    const { recent } = await this.history.sensorHistory(definition.id);
    const entry = this.entries.get(definition.id);
    this.definitionChanges++;
    if (entry) {
      entry.definition = definition;
      return;
    }
    const state = {
      ...INITIAL_STATE,
      status: definition.enabled ? ('unknown' as const) : ('paused' as const),
    };
    this.entries.set(definition.id, entryOf(definition, state, recent));
  }

  /** Writes the waiting results now (sensors handed over: their new owner reads them). */
  flush(): Promise<void> {
    return this.writer.flushed();
  }

  remove(id: number): void {
    this.entries.delete(id);
    this.definitionChanges++;
    this.writer.forget(id);
  }

  /** A scheduled probe's outcome: stored, and run through the state machine; resolves once announced. */
  async record(id: number, outcome: ProbeOutcome, at: number): Promise<ProbeResult | null> {
    return (await this.submit(id, outcome, at)).announced;
  }

  /** As record, but resolves once the step is taken and its result queued, before it is stored. */
  async submit(id: number, outcome: ProbeOutcome, at: number): Promise<Submitted> {
    const entry = this.entries.get(id);
    if (!entry || !entry.definition.enabled) return { announced: Promise.resolve(null) };
    const event: SensorEvent = { type: 'result', at, success: outcome.success, message: outcome.message };
    return this.apply(entry, event, outcome);
  }

  /**
   * Run now: stores the result and publishes it, and it is the newest check (time, latency, message),
   * but it never touches status, streak, incidents or alerts.
   */
  async recordManual(id: number, outcome: ProbeOutcome, at: number): Promise<ProbeResult | null> {
    const entry = this.entries.get(id);
    if (!entry) return null;
    const ts = this.writer.enqueue({ sensorId: id, ts: at, ...outcomeColumns(outcome) });
    const committed = this.writer.committed();
    // Answered once stored (at once on SQLite; after the batch's transaction on PostgreSQL).
    const written = this.writer.flushed();
    const result = resultView(ts, outcome);
    void this.announcements.after(id, committed, () => {
      // Shown as the newest check, as a restart would show it (it rebuilds these from stored results).
      this.pushSpark(entry, ts, outcome);
      entry.message = result.message;
      entry.lastCheckedAt = ts;
      entry.latencyMs = result.latency_ms;
      this.events.emit('result', { sensor_id: id, result });
    });
    await written;
    return result;
  }

  private pushSpark(entry: RuntimeEntry, ts: number, outcome: ProbeOutcome): void {
    this.pushPoint(entry, { ts: iso(ts), success: outcome.success, latency_ms: outcome.latencyMs });
  }

  private pushPoint(entry: RuntimeEntry, point: SparkPoint): void {
    entry.sparkline.push(point);
    if (entry.sparkline.length > SPARKLINE_LENGTH) entry.sparkline.shift();
    entry.recent = (entry.recent + outcomeChar(point.success)).slice(-RECENT_OUTCOMES);
  }

  /** Another instance stored a result of this sensor: it shows here as it does there. */
  observeResult(id: number, result: ProbeResult): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.pushPoint(entry, { ts: result.ts, success: result.success, latency_ms: result.latency_ms });
    entry.message = result.message;
    entry.lastCheckedAt = Date.parse(result.ts);
    entry.latencyMs = result.latency_ms;
    entry.lastResult = result;
  }

  /** Another instance (the sensor's owner) changed its status. */
  observeStatus(id: number, status: SensorStatus, at: number): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.state = { ...entry.state, status };
    entry.statusChangedAt = at;
  }

  /** Another instance opened, changed or closed the sensor's incident. */
  observeIncident(id: number, incident: Incident): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    const open = incident.resolved_at
      ? null
      : { id: incident.id, startedAt: Date.parse(incident.started_at), acknowledged: incident.acknowledged };
    entry.state = { ...entry.state, incident: open };
  }

  /** Pause, resume, acknowledge and un-acknowledge go through the same path as results. */
  async command(id: number, type: 'pause' | 'resume' | 'acknowledge' | 'unacknowledge'): Promise<void> {
    const entry = this.entries.get(id);
    if (entry) await (await this.apply(entry, { type, at: this.clock.now() }, null)).announced;
  }

  /** Once a second: reminders, and maintenance windows that have begun, for the sensors it owns. */
  async tick(
    startedWindows: { name: string; covers: (id: number) => boolean }[],
    owned: (id: number) => boolean = () => true,
  ): Promise<void> {
    const at = this.clock.now();
    for (const entry of this.entries.values()) {
      if (!entry.state.incident || !owned(entry.definition.id)) continue;
      const window = startedWindows.find((w) => w.covers(entry.definition.id));
      const event: SensorEvent | null = window
        ? { type: 'maintenance-start', at, window: window.name }
        : entry.state.status === 'down'
          ? { type: 'tick', at }
          : null;
      if (event) await (await this.apply(entry, event, null)).announced;
    }
  }

  private excuse(definition: SensorDefinition, at: number): Excuse {
    const parent = definition.parentId === null ? undefined : this.entries.get(definition.parentId);
    return {
      parentDown: parent?.state.status === 'down',
      inMaintenance: this.maintenance.inMaintenance(definition.id, at),
    };
  }

  private async apply(
    entry: RuntimeEntry,
    event: SensorEvent,
    outcome: ProbeOutcome | null,
  ): Promise<Submitted> {
    const id = entry.definition.id;
    let result: ProbeResult | null = null;
    let step!: Transition;
    let written: WrittenChange = { ts: null, incidents: [], alerts: [] };
    let announced: Promise<void> | null = null;
    await this.locks.run(id, async () => {
      step = transition(
        entry.state,
        { retries: entry.definition.retries, reminderEvery: entry.definition.reminderEvery },
        event,
        this.excuse(entry.definition, event.at),
      );
      const atOnce = StateChangeWriter.needed(step);
      const statusChanged = step.effects.some((e) => e.kind === 'status-changed');
      const statusChangedAt = statusChanged ? event.at : entry.statusChangedAt;
      const columns = {
        status: step.state.status,
        message: outcome ? outcome.message : entry.message,
        lastCheckedAt: outcome ? event.at : (entry.lastCheckedAt ?? event.at),
        latencyMs: outcome ? outcome.latencyMs : entry.latencyMs,
        streak: step.state.streak,
        statusChangedAt,
        lastAlertAt: step.state.lastAlertAt,
      };
      const stored = outcome ? { sensorId: id, ts: event.at, ...outcomeColumns(outcome) } : null;
      let ts: number | null = null;
      let committed: Promise<void> | null = null;
      if (atOnce) {
        const caused = outcome && stored ? { stored, view: (at: number) => resultView(at, outcome) } : null;
        try {
          written = await this.changes.write(entry, step, event.at, caused, columns);
        } catch (error) {
          // Nothing of the step was written: the state stays and the next result tries again;
          // the result itself waits in the batch like any other.
          if (stored) this.writer.enqueue(stored);
          throw error;
        }
        ts = written.ts;
      } else if (stored) {
        ts = this.writer.enqueue(stored, columns);
        committed = this.writer.committed();
      } else if (step.effects.length > 0) this.writer.enqueueSensor(id, columns);
      // Only a written step moves the runtime state (a failed write throws above and changes nothing).
      entry.state = step.state;
      entry.statusChangedAt = statusChangedAt;
      if (!outcome || ts === null) return;
      const shown = resultView(ts, outcome);
      result = shown;
      // Queued under the lock, so a sensor's results are announced in the order of its steps. The
      // last check is shown (sensor list, summary, metrics) from then on too, never before it is stored.
      announced = this.announcements.after(id, committed, () => {
        entry.message = outcome.message;
        entry.lastCheckedAt = event.at;
        entry.latencyMs = outcome.latencyMs;
        entry.lastResult = shown;
        this.pushSpark(entry, ts, outcome);
        this.announce(entry, step, shown, written);
      });
    });
    // A step without a result (a command, a reminder) waits for nothing: its events go out now.
    if (!announced) this.announce(entry, step, null, written);
    const done: Promise<void> = announced ?? Promise.resolve();
    return { announced: done.then(() => result) };
  }

  private announce(
    entry: RuntimeEntry,
    step: Transition,
    result: ProbeResult | null,
    written: WrittenChange,
  ): void {
    const id = entry.definition.id;
    if (result) this.events.emit('result', { sensor_id: id, result });
    for (const effect of step.effects) {
      if (effect.kind === 'status-changed') {
        const last = entry.lastResult;
        this.events.emit('status', {
          sensor_id: id,
          status: effect.to,
          result: {
            ts: last?.ts ?? iso(this.clock.now()),
            success: last?.success ?? false,
            message: last?.message ?? '',
          },
        });
      }
    }
    for (const incident of written.incidents) this.events.emit('incident', { sensor_id: id, incident });
    for (const alert of written.alerts) {
      this.events.emit('alert', alert);
      this.logger.info({ sensor_id: id, alert: alert.kind, down_for_ms: alert.downForMs }, 'alert');
    }
  }
}
