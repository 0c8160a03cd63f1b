import { Injectable, inject } from '@angular/core';
import type {
  ApiKeyResponse,
  MaintenanceWindow,
  MetricsTokenResponse,
  Sensor,
  SettingsResponse,
  UpdateSettingsRequest,
} from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

/** What `POST /api/maintenance` takes: an empty `sensors` list covers every sensor. */
export type MaintenanceWindowInput = Pick<MaintenanceWindow, 'name' | 'starts_at' | 'ends_at' | 'sensors'>;

/**
 * The calls of the settings page and its metrics token panel. Every one rejects with an
 * `ApiCallError` whose message is the server's own `{error}` text where it sent one.
 */
@Injectable({ providedIn: 'root' })
export class SettingsApi {
  private readonly api = inject(ApiClient);

  settings(): Promise<SettingsResponse> {
    return this.api.get<SettingsResponse>('/api/settings');
  }

  /** Saves the signed-in account's dashboard preferences that `ui` names. */
  saveUi(ui: UpdateSettingsRequest['ui']): Promise<unknown> {
    return this.api.put<unknown>('/api/settings', { ui });
  }

  /** Makes a new API key, replacing the one set. */
  rotateApiKey(): Promise<ApiKeyResponse> {
    return this.api.post<ApiKeyResponse>('/api/api-key');
  }

  removeApiKey(): Promise<unknown> {
    return this.api.delete<unknown>('/api/api-key');
  }

  /** Makes a new metrics token, replacing the one set; the answer is the only time it is shown. */
  rotateMetricsToken(): Promise<MetricsTokenResponse> {
    return this.api.post<MetricsTokenResponse>('/api/metrics-token');
  }

  removeMetricsToken(): Promise<unknown> {
    return this.api.delete<unknown>('/api/metrics-token');
  }

  maintenanceWindows(): Promise<MaintenanceWindow[]> {
    return this.api.get<MaintenanceWindow[]>('/api/maintenance');
  }

  createMaintenanceWindow(input: MaintenanceWindowInput): Promise<unknown> {
    return this.api.post<unknown>('/api/maintenance', input);
  }

  removeMaintenanceWindow(id: number): Promise<unknown> {
    return this.api.delete<unknown>(`/api/maintenance/${id}`);
  }

  /** The sensors a maintenance window can cover (their names and ids). */
  sensors(): Promise<Sensor[]> {
    return this.api.get<Sensor[]>('/api/sensors');
  }
}
