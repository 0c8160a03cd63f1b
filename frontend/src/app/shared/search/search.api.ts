import { Injectable, inject } from '@angular/core';
import type { Incident, SearchResponse } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

/** The calls of the global search. */
@Injectable({ providedIn: 'root' })
export class SearchApi {
  private readonly api = inject(ApiClient);

  search(q: string): Promise<SearchResponse> {
    return this.api.get<SearchResponse>('/api/search', { params: { q } });
  }

  /** Up to `limit` incidents the incidents page finds for `q`, newest first. */
  incidentsMatching(q: string, limit: number): Promise<Incident[]> {
    return this.api.get<Incident[]>('/api/incidents', { params: { q, limit } });
  }
}
