/** Public status pages and badges (issue 17). */

/** Languages a status page can be rendered in; '' follows the visitor's Accept-Language. */
export const STATUS_PAGE_LANGUAGES = ['en', 'de'] as const;
export type StatusPageLanguage = (typeof STATUS_PAGE_LANGUAGES)[number];

export const STATUS_PAGE_HISTORY_DAYS = [30, 60, 90] as const;
export type StatusPageHistoryDays = (typeof STATUS_PAGE_HISTORY_DAYS)[number];

export const ANNOUNCEMENT_SEVERITIES = ['info', 'warning', 'critical'] as const;
export type AnnouncementSeverity = (typeof ANNOUNCEMENT_SEVERITIES)[number];

/** Lowercase letters, digits and '-', 1 to 64 characters. */
export const STATUS_PAGE_SLUG_PATTERN = /^[a-z0-9-]{1,64}$/;

/** Limits of a status page's fields: the API, the backup and the configuration file share them (characters, entries). */
export const STATUS_PAGE_LIMITS = {
  title: 200,
  text: 2000,
  sections: 50,
  sectionTitle: 200,
  sensorsPerSection: 500,
  announcementTitle: 200,
  announcementBody: 5000,
  /** Pages a backup or the configuration file may hold. */
  pages: 1000,
} as const;

/**
 * A page's own settings (sections and announcements apart) as they are stored, and as the API, a
 * restore and the configuration file set them.
 */
export interface StatusPageFields {
  slug: string;
  title: string;
  description: string;
  published: boolean;
  show_uptime: boolean;
  history_days: number;
  footer: string;
  language: string;
}

export interface StatusPageSection {
  title: string;
  /** Sensor ids in display order. */
  sensors: number[];
}

export interface StatusPageAnnouncement {
  id: number;
  title: string;
  body: string;
  severity: AnnouncementSeverity;
  created_at: string;
}

/** A status page as GET /api/status-pages[/{id}] and POST/PUT answer it. */
export interface StatusPage {
  id: number;
  slug: string;
  title: string;
  /** Plain text. */
  description: string;
  sections: StatusPageSection[];
  published: boolean;
  show_uptime: boolean;
  history_days: StatusPageHistoryDays;
  /** Plain text. */
  footer: string;
  /** `en`, `de`, or '' for the visitor's Accept-Language. */
  language: StatusPageLanguage | '';
  /** Newest first. */
  announcements: StatusPageAnnouncement[];
  /** `config` when declared in the configuration file (cannot be changed or deleted), else null. */
  managed_by: string | null;
  created_at: string;
  updated_at: string;
}

/** POST /api/status-pages (slug and title required) and PUT /api/status-pages/{id} (absent fields keep their value). */
export interface StatusPageInput {
  slug?: string;
  title?: string;
  description?: string;
  sections?: StatusPageSection[];
  published?: boolean;
  show_uptime?: boolean;
  history_days?: StatusPageHistoryDays;
  footer?: string;
  language?: StatusPageLanguage | '';
}

/** GET /api/status-pages */
export interface StatusPagesResponse {
  /** Sorted by slug. */
  status_pages: StatusPage[];
}

/** POST /api/status-pages/{id}/announcements */
export interface AnnouncementInput {
  title: string;
  body: string;
  severity: AnnouncementSeverity;
}

/** The whole page's state, worst first: outage > degraded > maintenance > operational. */
export type PublicPageStatus = 'operational' | 'degraded' | 'outage' | 'maintenance';

/** A sensor's state on a public page: never the target, message, cause or options. */
export type PublicSensorStatus = 'up' | 'down' | 'degraded' | 'maintenance' | 'paused' | 'unknown';

export interface PublicDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  /** Percent up that day, null without data. */
  uptime: number | null;
  /** The worst the sensor was that day: `down` with an outage, `degraded` with failed probes only. */
  worst: 'up' | 'degraded' | 'down' | null;
}

export interface PublicSensor {
  name: string;
  status: PublicSensorStatus;
  /** Percent up over 1, 30 and 90 days; null without data (all null when the page hides uptime). */
  uptime: { d1: number | null; d30: number | null; d90: number | null };
  /** One entry per day of the page's history_days, oldest first, ending today. */
  days: PublicDay[];
}

export interface PublicIncident {
  /** The sensor's name. */
  sensor: string;
  started_at: string;
  resolved_at?: string;
}

/** GET /api/public/status-pages/{slug}: published pages only, no authentication. */
export interface PublicStatusPage {
  slug: string;
  title: string;
  description: string;
  footer: string;
  status: PublicPageStatus;
  updated_at: string;
  announcements: { title: string; body: string; severity: AnnouncementSeverity; created_at: string }[];
  sections: { title: string; sensors: PublicSensor[] }[];
  incidents: PublicIncident[];
}
