import { Injectable, inject } from '@angular/core';
import type { OkResponse, ProbeResult, PushToken, Sensor, SensorInput } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

const sensorPath = (id: number) => `/api/sensors/${id}`;

/** What `POST /api/sensors/validate` answers: accepted, and the probe's result when one was asked for. */
export interface ValidateAnswer {
  readonly ok: boolean;
  readonly result?: ProbeResult;
}

/** The calls of the sensor editor (administrators): the sensor, the choices it offers, check, save, delete. */
@Injectable({ providedIn: 'root' })
export class SensorEditorApi {
  private readonly api = inject(ApiClient);

  get(id: number): Promise<Sensor> {
    return this.api.get<Sensor>(sensorPath(id));
  }

  sites(): Promise<{ sites: { name: string }[] }> {
    return this.api.get<{ sites: { name: string }[] }>('/api/sites');
  }

  channels(): Promise<{ id: number; name: string }[]> {
    return this.api.get<{ id: number; name: string }[]>('/api/channels');
  }

  sensors(): Promise<Sensor[]> {
    return this.api.get<Sensor[]>('/api/sensors');
  }

  /** Checks a sensor (and, with `probe`, runs it once); stores nothing. */
  validate(body: SensorInput & { probe?: boolean }): Promise<ValidateAnswer> {
    return this.api.post<ValidateAnswer>('/api/sensors/validate', body);
  }

  create(body: SensorInput): Promise<Sensor> {
    return this.api.post<Sensor>('/api/sensors', body);
  }

  update(id: number, body: SensorInput): Promise<Sensor> {
    return this.api.put<Sensor>(sensorPath(id), body);
  }

  remove(id: number): Promise<OkResponse> {
    return this.api.delete<OkResponse>(sensorPath(id));
  }

  /** A new token for a push sensor (the old one stops working). */
  rotatePushToken(id: number): Promise<PushToken> {
    return this.api.post<PushToken>(`${sensorPath(id)}/push-token`);
  }
}
