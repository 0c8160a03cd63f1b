import { Injectable, inject } from '@angular/core';
import type { VersionInfo } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

/** The call of the about page. */
@Injectable({ providedIn: 'root' })
export class AboutApi {
  private readonly api = inject(ApiClient);

  /** Which build of Monitor the server runs. */
  version(): Promise<VersionInfo> {
    return this.api.get<VersionInfo>('/api/version');
  }
}
