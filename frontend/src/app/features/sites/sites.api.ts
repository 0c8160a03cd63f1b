import { Injectable, inject } from '@angular/core';
import type {
  MapSettings,
  MapSettingsInput,
  SiteDeleted,
  SiteDetail,
  SiteInput,
  SitesResponse,
} from '@monitor/contracts';
import type { Topology } from 'topojson-client';

import { ApiClient } from '../../core/api/api-client.service';

/**
 * Where the bundled map data is served from. The files are Natural Earth's 1:110m land and
 * admin-0 country outlines (public domain) as TopoJSON, vendored in `frontend/src/map` from the
 * `world-atlas` package (ISC, Mike Bostock), shipped by `angular.json` (`assets`, output `map/`,
 * with the licence) and turned into GeoJSON in the browser with `topojson-client`.
 */
export const LAND_URL = '/map/land-110m.json';
export const COUNTRIES_URL = '/map/countries-110m.json';

const sitePath = (name: string) => `/api/sites/${encodeURIComponent(name)}`;

/** The calls of the sites page: the sites, the map settings and the bundled map outlines. */
@Injectable({ providedIn: 'root' })
export class SitesApi {
  private readonly api = inject(ApiClient);

  /** The sites, their kinds and the installation's map settings. */
  list(): Promise<SitesResponse> {
    return this.api.get<SitesResponse>('/api/sites');
  }

  create(input: SiteInput): Promise<SiteDetail> {
    return this.api.post<SiteDetail>('/api/sites', input);
  }

  /** Renames, re-kinds or moves `name`; absent fields keep their value. */
  update(name: string, input: SiteInput): Promise<SiteDetail> {
    return this.api.put<SiteDetail>(sitePath(name), input);
  }

  /** Deletes `name`; with `unassign`, its sensors are left without a site (else a 409 while it has any). */
  remove(name: string, unassign: boolean): Promise<SiteDeleted> {
    const options = unassign ? { params: { unassign: 1 } } : undefined;
    return this.api.delete<SiteDeleted>(sitePath(name), options);
  }

  /** Saves the map settings; absent fields keep their value. */
  saveMap(input: MapSettingsInput): Promise<MapSettings> {
    return this.api.put<MapSettings>('/api/map', input);
  }

  /** The land outlines, as TopoJSON. */
  landOutlines(): Promise<Topology> {
    return this.api.get<Topology>(LAND_URL);
  }

  /** The country outlines, as TopoJSON. */
  countryOutlines(): Promise<Topology> {
    return this.api.get<Topology>(COUNTRIES_URL);
  }
}
