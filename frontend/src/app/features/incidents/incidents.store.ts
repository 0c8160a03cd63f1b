import { DestroyRef, Injectable, inject, signal } from '@angular/core';
import type { Incident } from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { t } from '../../core/i18n/i18n';
import { type IncidentQuery, IncidentsApi, replaceIncident } from './incidents.api';
import type { AcknowledgeRequest } from './incident-table.component';

/** A sensor as the filter offers it. */
export interface SensorChoice {
  readonly id: number;
  readonly name: string;
}

/**
 * The data of `/incidents`: the filtered list, the sensors to filter by, and acknowledging.
 * Provided by the page; an answer to an older query that arrives late is dropped.
 */
@Injectable()
export class IncidentsStore {
  private readonly api = inject(IncidentsApi);

  private generation = 0;
  private destroyed = false;

  private readonly listState = signal<Incident[] | undefined>(undefined);
  private readonly listError = signal<ApiCallError | undefined>(undefined);
  private readonly listLoading = signal(false);
  private readonly sensorState = signal<SensorChoice[]>([]);
  private readonly sensorError = signal<ApiCallError | undefined>(undefined);
  private readonly busyState = signal(false);
  private readonly actionState = signal<string | undefined>(undefined);
  private readonly statusState = signal('');

  readonly incidents = this.listState.asReadonly();
  readonly error = this.listError.asReadonly();
  readonly loading = this.listLoading.asReadonly();
  readonly sensors = this.sensorState.asReadonly();
  readonly sensorsError = this.sensorError.asReadonly();
  /** True while an acknowledgement call is in flight. */
  readonly busy = this.busyState.asReadonly();
  /** The server's refusal of the last acknowledgement, verbatim. */
  readonly actionError = this.actionState.asReadonly();
  /** What the last acknowledgement did, for the live region. */
  readonly status = this.statusState.asReadonly();

  private lastQuery: IncidentQuery = {};

  constructor() {
    inject(DestroyRef).onDestroy(() => (this.destroyed = true));
  }

  /** Reads the sensors for the sensor filter (once). */
  async loadSensors(): Promise<void> {
    this.sensorError.set(undefined);
    try {
      const sensors = await this.api.sensors();
      if (this.destroyed) return;
      this.sensorState.set(
        sensors
          .map((sensor) => ({ id: sensor.id, name: sensor.name }))
          .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id),
      );
    } catch (failure: unknown) {
      if (!this.destroyed) this.sensorError.set(ApiCallError.from(failure));
    }
  }

  /** Lists the incidents matching `query`, newest first. */
  async load(query: IncidentQuery): Promise<void> {
    this.lastQuery = query;
    const generation = ++this.generation;
    const current = () => !this.destroyed && generation === this.generation;
    this.listLoading.set(true);
    this.listError.set(undefined);
    try {
      const incidents = await this.api.list(query);
      if (!current()) return;
      this.listState.set(incidents);
    } catch (failure: unknown) {
      if (!current()) return;
      this.listState.set(undefined);
      this.listError.set(ApiCallError.from(failure));
    } finally {
      if (current()) this.listLoading.set(false);
    }
  }

  reload(): Promise<void> {
    return this.load(this.lastQuery);
  }

  acknowledge(request: AcknowledgeRequest): Promise<void> {
    return this.change(
      () => this.api.acknowledge(request.incident.id, request.note),
      (incident) => t('incidents.status.acknowledged', { id: incident.id, sensor: incident.sensor_name }),
    );
  }

  unacknowledge(incident: Incident): Promise<void> {
    return this.change(
      () => this.api.unacknowledge(incident.id),
      (changed) => t('incidents.status.unacknowledged', { id: changed.id, sensor: changed.sensor_name }),
    );
  }

  private async change(
    call: () => Promise<Incident>,
    describe: (incident: Incident) => string,
  ): Promise<void> {
    if (this.busyState()) return;
    this.busyState.set(true);
    this.actionState.set(undefined);
    this.statusState.set('');
    try {
      const changed = await call();
      if (this.destroyed) return;
      const list = this.listState();
      if (list) this.listState.set(replaceIncident(list, changed));
      this.statusState.set(describe(changed));
    } catch (failure: unknown) {
      if (!this.destroyed) this.actionState.set(ApiCallError.from(failure).message);
    } finally {
      this.busyState.set(false);
    }
  }
}
