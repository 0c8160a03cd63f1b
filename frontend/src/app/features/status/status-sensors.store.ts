import { DestroyRef, Injectable, type Signal, type WritableSignal, inject, signal } from '@angular/core';
import {
  RECENT_OUTCOMES,
  SPARKLINE_POINTS,
  type LiveEventPayloads,
  type Sensor,
  type SummarySensor,
} from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { t } from '../../core/i18n/i18n';
import { LiveEvents } from '../../core/live/live-events.service';
import { StatusApi } from './status.api';

/** How long a card stays marked after its status changed. */
export const CHANGE_MARK_MS = 2_000;
/** The summary is refetched this often whatever the stream does. */
export const SUMMARY_POLL_MS = 60_000;
/** Events asking for a refetch within this time cause one refetch. */
const REFETCH_COALESCE_MS = 250;
/** How long the first read waits for the stream to open before reading anyway. */
const STREAM_WAIT_MS = 1_000;
/** Patches kept while a list is on its way; beyond this the stream is too busy to replay. */
const MAX_RECORDED = 20_000;

/** One sensor of the list: patched in place, so only its own row is redrawn. */
export interface SensorRow {
  readonly id: number;
  readonly sensor: Signal<SummarySensor>;
  /** True for a moment after the status changed. */
  readonly changed: Signal<boolean>;
}

interface MutableRow extends SensorRow {
  readonly sensor: WritableSignal<SummarySensor>;
  readonly changed: WritableSignal<boolean>;
  markTimer?: ReturnType<typeof setTimeout>;
}

const after = (a: string, b: string | null): boolean => b === null || Date.parse(a) >= Date.parse(b);

/**
 * The status page's sensor list: `GET /api/summary`, kept current by the live stream. `result` and
 * `status` events patch one sensor in place; `sensor`, `channel` and `settings` events and every
 * (re)connection refetch the summary; and it is refetched every minute in any case, which is all
 * that happens when live updates are off.
 *
 * The patches that arrive while a read is on its way are replayed over its answer, which is older
 * than they are: nothing falls between the two. With live updates on, the first read waits until the
 * stream is open, so the list (over a megabyte with 2,000 sensors) is read once rather than once
 * before and once after connecting.
 */
@Injectable()
export class StatusSensorsStore {
  private readonly api = inject(StatusApi);
  private readonly live = inject(LiveEvents);

  private readonly list = signal<MutableRow[] | undefined>(undefined);
  private readonly failure = signal<ApiCallError | undefined>(undefined);
  private readonly busy = signal(false);
  private readonly said = signal('');
  private readonly anyChange = signal(0);
  private readonly standingChange = signal(0);
  private readonly byId = new Map<number, MutableRow>();
  private generation = 0;
  private refetchTimer: ReturnType<typeof setTimeout> | undefined;
  private destroyed = false;
  /** Patches since the latest read was sent, to replay over its answer; undefined when none is on its way. */
  private recorded: ((replay: boolean) => void)[] | undefined;

  /** The sensors, in the summary's order; undefined until the first answer. */
  readonly rows: Signal<SensorRow[] | undefined> = this.list.asReadonly();
  readonly error = this.failure.asReadonly();
  readonly loading = this.busy.asReadonly();
  /** The latest status change in words, for a polite live region. */
  readonly announcement = this.said.asReadonly();
  readonly liveState = this.live.state;
  readonly liveEnabled = this.live.enabled;
  /**
   * Counts every change to any row (a result, a mark coming or going, a new list): one signal to
   * follow instead of thousands of row signals, for views that redraw many sensors by hand.
   */
  readonly revision = this.anyChange.asReadonly();
  /**
   * Counts the changes that can move a sensor between states, filters or places (a new list, a
   * status, a sensor saved, a new order), but not a mere result: the counts, filters and order of
   * 2,000 sensors are worked out again only then, not 200 times a second.
   */
  readonly standingRevision = this.standingChange.asReadonly();

  constructor() {
    const destroyRef = inject(DestroyRef);
    this.live.retain(destroyRef);
    const subscriptions = [
      this.live.on('result').subscribe((event) => this.patch(() => this.applyResult(event))),
      this.live.on('status').subscribe((event) => this.patch((replay) => this.applyStatus(event, replay))),
      this.live.on('incident').subscribe((event) => this.patch(() => this.applyIncident(event))),
      this.live.on('sensor').subscribe(() => this.refetchSoon()),
      this.live.on('channel').subscribe(() => this.refetchSoon()),
      this.live.on('settings').subscribe(() => this.refetchSoon()),
      this.live.connected$.subscribe(() => this.refresh()),
    ];
    const poll = setInterval(() => this.refresh(), SUMMARY_POLL_MS);
    destroyRef.onDestroy(() => {
      this.destroyed = true;
      this.generation++;
      clearInterval(poll);
      clearTimeout(this.refetchTimer);
      for (const subscription of subscriptions) subscription.unsubscribe();
      for (const row of this.byId.values()) clearTimeout(row.markTimer);
    });
    if (this.live.enabled() && this.live.state() !== 'open') {
      this.refetchTimer = setTimeout(() => this.refresh(), STREAM_WAIT_MS);
    } else {
      this.refresh();
    }
  }

  /** Fetches the summary now; an answer to an earlier fetch that arrives later is ignored. */
  refresh(): void {
    clearTimeout(this.refetchTimer);
    this.refetchTimer = undefined;
    const generation = ++this.generation;
    const recorded: ((replay: boolean) => void)[] = [];
    this.recorded = recorded;
    this.busy.set(true);
    this.api.summary().then(
      (summary) => {
        if (generation !== this.generation) return;
        this.recorded = undefined;
        this.replace(summary.sensors);
        for (const apply of recorded) apply(true);
        this.failure.set(undefined);
        this.busy.set(false);
      },
      (failure: unknown) => {
        if (generation !== this.generation) return;
        this.recorded = undefined;
        this.failure.set(ApiCallError.from(failure));
        this.busy.set(false);
      },
    );
  }

  /** Takes a sensor the server just answered with (after pause or resume). */
  applySensor(sensor: Sensor): void {
    const row = this.byId.get(sensor.id);
    if (!row) return;
    row.sensor.update((known) => ({ ...known, ...sensor }));
    this.noteChange(true);
  }

  private noteChange(standing: boolean): void {
    this.anyChange.update((n) => n + 1);
    if (standing) this.standingChange.update((n) => n + 1);
  }

  /**
   * Puts the sensors in the order of `ids` at once, then saves the full order with
   * `PUT /api/sensor-order`. When saving fails the list is read again and the error rethrown.
   */
  async reorder(ids: number[]): Promise<void> {
    const rows = ids.map((id) => this.byId.get(id)).filter((row): row is MutableRow => !!row);
    // An answer to a fetch sent before the move would put the old order back.
    this.generation++;
    this.recorded = undefined;
    this.busy.set(false);
    this.list.set(rows);
    this.noteChange(true);
    try {
      await this.api.saveOrder(ids);
    } catch (failure) {
      this.refresh();
      throw ApiCallError.from(failure);
    }
  }

  private patch(apply: (replay: boolean) => void): void {
    if (this.list()) apply(false);
    if (this.recorded && this.recorded.length < MAX_RECORDED) this.recorded.push(apply);
  }

  private refetchSoon(): void {
    if (this.refetchTimer !== undefined || this.destroyed) return;
    this.refetchTimer = setTimeout(() => this.refresh(), REFETCH_COALESCE_MS);
  }

  /** Takes a fresh list, keeping each known sensor's row (and its mark). */
  private replace(sensors: SummarySensor[]): void {
    const seen = new Set<number>();
    const rows = sensors.map((sensor) => {
      seen.add(sensor.id);
      const known = this.byId.get(sensor.id);
      if (known) {
        known.sensor.set(sensor);
        return known;
      }
      const row: MutableRow = { id: sensor.id, sensor: signal(sensor), changed: signal(false) };
      this.byId.set(sensor.id, row);
      return row;
    });
    for (const [id, row] of this.byId) {
      if (seen.has(id)) continue;
      clearTimeout(row.markTimer);
      this.byId.delete(id);
    }
    this.list.set(rows);
    this.noteChange(true);
  }

  private applyResult({ sensor_id, result }: LiveEventPayloads['result']): void {
    const row = this.byId.get(sensor_id);
    if (!row) return;
    row.sensor.update((sensor) => {
      // The sparkline holds every result, Run now's too: a result it already ends with (a replay over
      // a summary that had it) is not added twice.
      const newest = sensor.sparkline.at(-1);
      if (newest && Date.parse(newest.ts) >= Date.parse(result.ts)) return sensor;
      const point = { ts: result.ts, success: result.success, latency_ms: result.latency_ms };
      return {
        ...sensor,
        ...(after(result.ts, sensor.last_checked_at)
          ? { message: result.message, latency_ms: result.latency_ms, last_checked_at: result.ts }
          : {}),
        sparkline: [...sensor.sparkline, point].slice(-SPARKLINE_POINTS),
        recent: (sensor.recent + (result.success ? '1' : '0')).slice(-RECENT_OUTCOMES),
      };
    });
    this.noteChange(false);
  }

  /**
   * A replayed change is not marked or announced again: it was when it arrived, or it came before
   * the list was first shown.
   */
  private applyStatus({ sensor_id, status, result }: LiveEventPayloads['status'], replay: boolean): void {
    const row = this.byId.get(sensor_id);
    if (!row || !after(result.ts, row.sensor().last_checked_at)) return;
    const before = row.sensor().status;
    row.sensor.update((sensor) => ({
      ...sensor,
      status,
      message: result.message,
      last_checked_at: result.ts,
    }));
    this.noteChange(before !== status);
    if (before === status || replay) return;
    this.said.set(t('status.sensors.nowStatus', { name: row.sensor().name, status }));
    clearTimeout(row.markTimer);
    row.changed.set(true);
    row.markTimer = setTimeout(() => {
      row.changed.set(false);
      this.noteChange(false);
    }, CHANGE_MARK_MS);
  }

  private applyIncident({ sensor_id, incident }: LiveEventPayloads['incident']): void {
    const row = this.byId.get(sensor_id);
    if (!row) return;
    const open = incident.resolved_at === undefined;
    row.sensor.update((sensor) => {
      if (open) return { ...sensor, incident_id: incident.id };
      return sensor.incident_id === incident.id ? { ...sensor, incident_id: null } : sensor;
    });
    this.noteChange(false);
  }
}
