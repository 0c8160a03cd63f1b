import { Injectable, inject } from '@angular/core';
import type { OkResponse, SetupRequest } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

/** The calls of the first-run page. */
@Injectable({ providedIn: 'root' })
export class SetupApi {
  private readonly api = inject(ApiClient);

  /** Creates the first administrator and signs in as it. */
  setup(body: SetupRequest): Promise<OkResponse> {
    return this.api.post<OkResponse>('/api/setup', body);
  }

  /** Keeps `language` (a BCP 47 tag) as the signed-in account's dashboard language. */
  saveLanguage(language: string): Promise<unknown> {
    return this.api.put('/api/settings', { ui: { language } });
  }
}
