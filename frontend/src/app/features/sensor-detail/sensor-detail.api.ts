import { Injectable, inject } from '@angular/core';
import type { HistoryRange, ProbeResult, SeriesResponse, Sensor, UptimeResponse } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

const sensorPath = (id: number) => `/api/sensors/${id}`;

/** The calls of the sensor detail page (its incidents go through `IncidentsApi`). */
@Injectable({ providedIn: 'root' })
export class SensorDetailApi {
  private readonly api = inject(ApiClient);

  sensor(id: number): Promise<Sensor> {
    return this.api.get<Sensor>(sensorPath(id));
  }

  /** The sensor's latest `limit` results, newest first. */
  results(id: number, limit: number): Promise<ProbeResult[]> {
    return this.api.get<ProbeResult[]>(`${sensorPath(id)}/results`, { params: { limit } });
  }

  series(id: number, range: HistoryRange): Promise<SeriesResponse> {
    return this.api.get<SeriesResponse>(`${sensorPath(id)}/series`, { params: { range } });
  }

  uptime(id: number, range: HistoryRange): Promise<UptimeResponse> {
    return this.api.get<UptimeResponse>(`${sensorPath(id)}/uptime`, { params: { range } });
  }

  /** "Run now": one probe, stored, that opens no incident and sends no alert. */
  runProbe(id: number): Promise<ProbeResult> {
    return this.api.post<ProbeResult>(`${sensorPath(id)}/probe`);
  }
}
