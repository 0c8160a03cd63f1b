import { Injectable, inject } from '@angular/core';
import type { HistoryRange, Incident, Sensor } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

export type IncidentState = 'all' | 'open' | 'resolved';
export const INCIDENT_STATES: readonly IncidentState[] = ['all', 'open', 'resolved'];

/** The filters of `GET /api/incidents`; an absent field is not sent. */
export interface IncidentQuery {
  readonly state?: IncidentState;
  readonly sensor?: number;
  readonly range?: HistoryRange;
  readonly q?: string;
  readonly limit?: number;
}

/** The incident calls shared by the incidents page and the sensor detail page. */
@Injectable({ providedIn: 'root' })
export class IncidentsApi {
  private readonly api = inject(ApiClient);

  /** Incidents newest first. */
  list(query: IncidentQuery): Promise<Incident[]> {
    const params: Record<string, string | number> = {};
    if (query.state && query.state !== 'all') params['state'] = query.state;
    if (query.sensor !== undefined) params['sensor'] = query.sensor;
    if (query.range) params['range'] = query.range;
    if (query.q) params['q'] = query.q;
    if (query.limit !== undefined) params['limit'] = query.limit;
    return this.api.get<Incident[]>('/api/incidents', { params });
  }

  /** One sensor's incidents, newest first. */
  forSensor(sensorId: number, limit = 50): Promise<Incident[]> {
    return this.api.get<Incident[]>(`/api/sensors/${sensorId}/incidents`, { params: { limit } });
  }

  acknowledge(id: number, note: string): Promise<Incident> {
    const trimmed = note.trim();
    return this.api.post<Incident>(`/api/incidents/${id}/ack`, trimmed ? { note: trimmed } : {});
  }

  unacknowledge(id: number): Promise<Incident> {
    return this.api.delete<Incident>(`/api/incidents/${id}/ack`);
  }

  /** The sensors the incidents page can filter by. */
  sensors(): Promise<Sensor[]> {
    return this.api.get<Sensor[]>('/api/sensors');
  }
}

/** `list` with `changed` put in place of the incident with the same id. */
export function replaceIncident(list: readonly Incident[], changed: Incident): Incident[] {
  return list.map((incident) => (incident.id === changed.id ? changed : incident));
}
