import { Injectable, inject } from '@angular/core';
import type { Incident, ProbeResult, Sensor, Summary, UiSettings } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

const sensorPath = (id: number) => `/api/sensors/${id}`;

/** The calls of the status page: the sensor list, its order and views, and each sensor's actions. */
@Injectable({ providedIn: 'root' })
export class StatusApi {
  private readonly api = inject(ApiClient);

  /** Every sensor with its latest standing. */
  summary(): Promise<Summary> {
    return this.api.get<Summary>('/api/summary');
  }

  /** Saves the full order of the sensors. */
  saveOrder(ids: readonly number[]): Promise<unknown> {
    return this.api.put('/api/sensor-order', { ids });
  }

  /** Saves the account's choice of density or order. */
  saveView(change: Partial<Pick<UiSettings, 'density' | 'order'>>): Promise<unknown> {
    return this.api.put('/api/settings', { ui: change });
  }

  runNow(id: number): Promise<ProbeResult> {
    return this.api.post<ProbeResult>(`${sensorPath(id)}/probe`);
  }

  /** Pauses or resumes a sensor; answers it as it is now. */
  setEnabled(id: number, enabled: boolean): Promise<Sensor> {
    return this.api.patch<Sensor>(sensorPath(id), { enabled });
  }

  /** Acknowledges the sensor's open incident, with the note when there is one. */
  acknowledge(id: number, note: string): Promise<Incident> {
    const trimmed = note.trim();
    return this.api.post<Incident>(`${sensorPath(id)}/ack`, trimmed ? { note: trimmed } : {});
  }
}
