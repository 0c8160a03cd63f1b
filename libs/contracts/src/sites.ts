import type { Site } from './sensors';

export type SiteKind = 'local' | 'external';
export const SITE_KINDS: readonly SiteKind[] = ['local', 'external'];

/** A site as GET /api/sites and POST/PUT /api/sites answer it. */
export interface SiteDetail extends Site {
  /** `config` when declared in the configuration file (cannot be renamed or deleted), else null. */
  managed_by: string | null;
}

/** POST /api/sites (name required) and PUT /api/sites/{name} (every field optional). */
export interface SiteInput {
  name?: string;
  /** `local` (default; '' means the default too) or `external`. */
  kind?: SiteKind | '';
  /** Both or neither; null is absent (POST) or clears (PUT, both null). */
  lat?: number | null;
  lon?: number | null;
}

/** DELETE /api/sites/{name}[?unassign=1] */
export interface SiteDeleted {
  deleted: string;
  /** True when the site's sensors were left without a site. */
  unassigned: boolean;
}

export type MapBorders = 'on' | 'off';

/** Installation-wide map settings. */
export interface MapSettings {
  /** Tile URL template with {z}, {x}, {y} and optional {s}; '' draws no tiles. */
  tile_url: string;
  attribution: string;
  borders: MapBorders;
}

/** PUT /api/map: absent fields keep their stored value. */
export type MapSettingsInput = Partial<MapSettings>;

/** GET /api/sites */
export interface SitesResponse {
  sites: SiteDetail[];
  kinds: SiteKind[];
  map: MapSettings;
}

/** One finding of the doctor (POST /api/doctor and the `doctor` subcommand). */
export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** POST /api/doctor: HTTP 200 also when problems are found; `ok` is false then. */
export interface DoctorReport {
  ok: boolean;
  checks: DoctorCheck[];
}
