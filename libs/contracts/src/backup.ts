/**
 * The backup document (GET /api/backup, POST /api/restore). One JSON object: the header first,
 * then one key per table. A restore replaces the rows of every table the document names and leaves
 * the others alone. Timestamps are ISO 8601 UTC strings; secrets are in clear text.
 */

/** The value of `format`: anything else is not a backup of this service. */
export const BACKUP_FORMAT = 'monitor-backup';
/** The document layout this build writes and the newest it reads. */
export const BACKUP_FORMAT_VERSION = 1;

export const BACKUP_SCOPES = ['config', 'history'] as const;
export type BackupScope = (typeof BACKUP_SCOPES)[number];

export const BACKUP_DAYS = ['7', '30', '90', 'all'] as const;
export type BackupDays = (typeof BACKUP_DAYS)[number];

/**
 * A sensor or channel named in another row. Names need not be unique: when several share one,
 * the entries carry `seq` (2, 3… in creation order) and references to them are `{name, seq}`.
 */
export type BackupRef = string | { name: string; seq: number };

export interface BackupSite {
  name: string;
  kind: 'local' | 'external';
  lat: number | null;
  lon: number | null;
  sample: boolean;
}

export interface BackupChannel {
  name: string;
  seq?: number;
  type: string;
  /** Every field in clear, credentials included. */
  config: Record<string, unknown>;
  enabled: boolean;
  title_template: string;
  body_template: string;
}

export interface BackupSensor {
  name: string;
  seq?: number;
  type: string;
  target: string;
  interval: number;
  retries: number;
  reminder_every: number;
  group: string;
  tags: string[];
  /** A site name; "" for none. */
  site: string;
  parent: BackupRef | null;
  enabled: boolean;
  /** Every option in clear, the SNMP community included. */
  options: Record<string, unknown>;
  channels: BackupRef[];
  sort_order: number;
  sample: boolean;
}

/** A status page: its sensors by reference, its announcements with their times. */
export interface BackupStatusPage {
  slug: string;
  title: string;
  description: string;
  published: boolean;
  show_uptime: boolean;
  history_days: 30 | 60 | 90;
  footer: string;
  /** `en`, `de` or ''. */
  language: string;
  sections: { title: string; sensors: BackupRef[] }[];
  announcements: {
    title: string;
    body: string;
    severity: 'info' | 'warning' | 'critical';
    created_at: string;
  }[];
}

export interface BackupRecoveryCode {
  code_hash: string;
  used_at: string | null;
}

export interface BackupAccount {
  username: string;
  role: 'admin' | 'operator' | 'viewer';
  disabled: boolean;
  /** bcrypt. */
  password_hash: string;
  /** Sessions name it; a session naming another epoch is refused. */
  token_epoch: number;
  totp_secret: string | null;
  totp_enabled: boolean;
  totp_last_step: number | null;
  ui: Record<string, string>;
  tour_version: number;
  last_login_at: string | null;
  created_at: string;
  recovery_codes: BackupRecoveryCode[];
}

export interface BackupIncident {
  sensor: BackupRef;
  started_at: string;
  resolved_at: string | null;
  cause: string;
  acknowledged: boolean;
  acknowledged_by: string | null;
  acknowledged_at: string | null;
  note: string;
  reconstructed: boolean;
}

/** A column of a rollup block: one value per bucket, or one value standing for every bucket. */
export type BackupColumn = number | null | (number | null)[];

/**
 * Consecutive rollup buckets of one sensor: bucket i starts at `start` + i × `step` seconds. A
 * bucket whose count is 0 is a gap (no row). Latencies are milliseconds rounded to 1 µs.
 */
export interface BackupRollupBlock {
  sensor: BackupRef;
  start: string;
  step: number;
  n: number;
  count: BackupColumn;
  up: BackupColumn;
  latency_sum: BackupColumn;
  latency_min: BackupColumn;
  latency_max: BackupColumn;
}

export interface BackupDocument {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  /** The number of database migrations of the build that wrote it. */
  schema_version: number;
  created_at: string;
  scope: BackupScope;
  /** history only: 7, 30, 90 or "all". */
  days?: number | 'all';
  /** Installation-wide settings by key (map settings under `map`). */
  settings?: Record<string, unknown>;
  /** The API key in clear; null when none is set. */
  api_key?: string | null;
  sites?: BackupSite[];
  channels?: BackupChannel[];
  sensors?: BackupSensor[];
  status_pages?: BackupStatusPage[];
  accounts?: BackupAccount[];
  incidents?: BackupIncident[];
  rollup_hourly?: BackupRollupBlock[];
  rollup_daily?: BackupRollupBlock[];
}

/** The tables a document may name, in the order a backup writes them. */
export const BACKUP_TABLES = [
  'settings',
  'api_key',
  'sites',
  'channels',
  'sensors',
  'status_pages',
  'accounts',
  'incidents',
  'rollup_hourly',
  'rollup_daily',
] as const;
export type BackupTable = (typeof BACKUP_TABLES)[number];

export interface RestoreResult {
  /** Rows written per table the document named (rollups count buckets, api_key 0 or 1). */
  counts: Partial<Record<BackupTable, number>>;
  /** File name of the copy of the database made before anything changed, beside the database. */
  safety_copy: string;
  /** True when accounts were restored: every session of theirs ended (the restoring browser got a fresh cookie). */
  token_epoch_notice: boolean;
}
