import { DestroyRef, Injectable, inject, signal } from '@angular/core';
import type {
  HistoryRange,
  Incident,
  ProbeResult,
  SeriesResponse,
  Sensor,
  UptimeResponse,
} from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { t } from '../../core/i18n/i18n';
import type { AcknowledgeRequest } from '../incidents/incident-table.component';
import { IncidentsApi, replaceIncident } from '../incidents/incidents.api';
import { Latest } from './latest';
import { SensorDetailApi } from './sensor-detail.api';

export const RECENT_RESULTS = 40;
const SENSOR_INCIDENTS = 50;

/**
 * The data of `/sensors/:id`: the sensor, its recent results and incidents, and the series and
 * figures of the chosen range. Provided by the page.
 */
@Injectable()
export class SensorDetailStore {
  private readonly api = inject(SensorDetailApi);
  private readonly incidentsApi = inject(IncidentsApi);

  readonly sensor = new Latest<Sensor>();
  readonly results = new Latest<ProbeResult[]>();
  readonly incidents = new Latest<Incident[]>();
  readonly series = new Latest<SeriesResponse>();
  readonly uptime = new Latest<UptimeResponse>();

  private readonly busyState = signal(false);
  private readonly actionState = signal<string | undefined>(undefined);
  private readonly statusState = signal('');
  private readonly probeState = signal<ProbeResult | undefined>(undefined);

  /** True while a probe or an acknowledgement is in flight. */
  readonly busy = this.busyState.asReadonly();
  /** The server's refusal of the last action, verbatim. */
  readonly actionError = this.actionState.asReadonly();
  /** What the last action did, for the live region. */
  readonly status = this.statusState.asReadonly();
  /** The result of the last "Run now". */
  readonly probe = this.probeState.asReadonly();

  private id: number | undefined;
  private range: HistoryRange = '24h';
  private destroyed = false;

  constructor() {
    inject(DestroyRef).onDestroy(() => {
      this.destroyed = true;
      for (const part of [this.sensor, this.results, this.incidents, this.series, this.uptime])
        part.abandon();
    });
  }

  /** Shows another sensor: everything of the previous one is cleared. */
  open(id: number): void {
    this.id = id;
    this.actionState.set(undefined);
    this.statusState.set('');
    this.probeState.set(undefined);
    void this.sensor.run(() => this.api.sensor(id), true);
    void this.loadResults(true);
    void this.loadIncidents(true);
  }

  /** Loads the series and the figures of `range` for the open sensor. */
  showRange(range: HistoryRange, clear = false): void {
    this.range = range;
    const id = this.id;
    if (id === undefined) return;
    void this.series.run(() => this.api.series(id, range), clear);
    void this.uptime.run(() => this.api.uptime(id, range), clear);
  }

  /** Reads everything again. */
  refresh(): void {
    const id = this.id;
    if (id === undefined) return;
    void this.sensor.run(() => this.api.sensor(id));
    void this.loadResults();
    void this.loadIncidents();
    this.showRange(this.range);
  }

  /** "Run now": one probe that is stored (no incident, no alert), then fresh data. */
  async runNow(): Promise<void> {
    const id = this.id;
    if (id === undefined) return;
    await this.act(async () => {
      const result = await this.api.runProbe(id);
      this.probeState.set(result);
      this.refresh();
      return t(result.success ? 'sensorDetail.status.probeSucceeded' : 'sensorDetail.status.probeFailed');
    });
  }

  acknowledge(request: AcknowledgeRequest): Promise<void> {
    return this.act(async () => {
      const changed = await this.incidentsApi.acknowledge(request.incident.id, request.note);
      this.replace(changed);
      return t('sensorDetail.status.acknowledged', { id: changed.id });
    });
  }

  unacknowledge(incident: Incident): Promise<void> {
    return this.act(async () => {
      const changed = await this.incidentsApi.unacknowledge(incident.id);
      this.replace(changed);
      return t('sensorDetail.status.unacknowledged', { id: changed.id });
    });
  }

  private loadResults(clear = false): Promise<void> {
    const id = this.id;
    if (id === undefined) return Promise.resolve();
    return this.results.run(() => this.api.results(id, RECENT_RESULTS), clear);
  }

  private loadIncidents(clear = false): Promise<void> {
    const id = this.id;
    if (id === undefined) return Promise.resolve();
    return this.incidents.run(() => this.incidentsApi.forSensor(id, SENSOR_INCIDENTS), clear);
  }

  private replace(changed: Incident): void {
    const list = this.incidents.value();
    if (list) this.incidents.set(replaceIncident(list, changed));
  }

  private async act(action: () => Promise<string>): Promise<void> {
    if (this.busyState()) return;
    this.busyState.set(true);
    this.actionState.set(undefined);
    this.statusState.set('');
    try {
      const done = await action();
      if (!this.destroyed) this.statusState.set(done);
    } catch (failure: unknown) {
      if (!this.destroyed) this.actionState.set(ApiCallError.from(failure).message);
    } finally {
      this.busyState.set(false);
    }
  }
}
