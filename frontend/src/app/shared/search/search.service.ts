import { Injectable, inject } from '@angular/core';
import type { SearchHit, SearchResponse } from '@monitor/contracts';

import { SearchApi } from './search.api';

export const SEARCH_MIN_LENGTH = 2;
export const SEARCH_MAX_LENGTH = 64;

/** The global search: its query (through `SearchApi`), and where a hit leads. */
@Injectable({ providedIn: 'root' })
export class SearchService {
  private readonly api = inject(SearchApi);

  search(q: string): Promise<SearchResponse> {
    return this.api.search(q);
  }

  /**
   * The in-app URL a hit leads to. An incident leads to its sensor when the incident can be found
   * again by the same text, otherwise to the incidents page filtered by that text.
   */
  async destination(hit: SearchHit, q: string): Promise<string> {
    switch (hit.kind) {
      case 'sensor':
      case 'result':
        return `/sensors/${encodeURIComponent(String(hit.ref))}`;
      case 'incident':
        return this.incidentDestination(Number(hit.ref), q);
      case 'channel':
        return '/channels';
      case 'user':
        return '/settings/accounts';
      case 'site':
        return '/';
    }
  }

  private async incidentDestination(id: number, q: string): Promise<string> {
    try {
      const incidents = await this.api.incidentsMatching(q, 1000);
      const incident = incidents.find((entry) => entry.id === id);
      if (incident) return `/sensors/${incident.sensor_id}`;
    } catch {
      // Fall back to the incidents page, which shows the error if there is one.
    }
    return `/incidents?q=${encodeURIComponent(q)}`;
  }
}
