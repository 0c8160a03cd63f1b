import type { StatusPageFields } from '@monitor/contracts';
import type { ChannelType, SensorFieldValues } from '@monitor/domain';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// The sensor and channel sections follow the definitions in libs/domain (config-sections.ts).
export { CHANNEL_TYPES, SENSOR_TYPES } from '@monitor/domain';
export const SITE_KINDS = ['local', 'external'] as const;

export interface SiteDeclaration {
  name: string;
  kind: (typeof SITE_KINDS)[number];
  lat: number | null;
  lon: number | null;
}

export interface ChannelDeclaration {
  name: string;
  type: ChannelType;
  config: Record<string, unknown>;
  enabled: boolean;
  title_template: string;
  body_template: string;
}

/** A sensor the file declares: its channels by name. */
export type SensorDeclaration = Omit<SensorFieldValues, 'channels'> & { channels: string[] };

export interface MaintenanceDeclaration {
  name: string;
  starts_at: string;
  ends_at: string;
  sensors: string[];
}

/** A status page the file declares, matched by slug; sections name sensors the file declares. */
export interface StatusPageDeclaration extends StatusPageFields {
  sections: { title: string; sensors: string[] }[];
}

export interface ListenAddress {
  host: string;
  port: number;
}

/** The validated configuration every part of the process reads. */
export interface MonitorConfig {
  listen: ListenAddress;
  data_dir: string;
  /**
   * A postgres:// URL selecting PostgreSQL, or null for the embedded SQLite file in data_dir.
   * A secret (it may hold a password): never logged; shown only through maskDatabaseUrl.
   */
  database_url: string | null;
  /** Absolute path of the YAML file the configuration came from, or null. */
  config_file: string | null;
  base_url: string;
  /** Host names (lower case) from which first-run setup may run, besides IPs, localhost and base_url's. */
  allowed_hosts: string[];
  /** This instance's name among several on one PostgreSQL (issue 16): unique among live ones. */
  instance_name: string;
  /** An instance whose heartbeat is older than this is dead and its sensors move. */
  cluster: { dead_after_seconds: number };
  trust_proxy: boolean;
  log_level: LogLevel;
  retention: { raw_seconds: number; hourly_seconds: number };
  sites: SiteDeclaration[];
  channels: ChannelDeclaration[];
  sensors: SensorDeclaration[];
  maintenance: MaintenanceDeclaration[];
  status_pages: StatusPageDeclaration[];
  identity: { puid: number; pgid: number; umask: number };
  /** From MONITOR_ADMIN_PASSWORD; a secret, never logged. */
  admin_password: string | null;
}

/** Where a configuration value may come from, lowest precedence first. */
export type ConfigSource = 'default' | 'file' | 'env' | 'flag';

export const CONFIG_DEFAULTS = {
  listen: '0.0.0.0:8080',
  data_dir: './data',
  database_url: '',
  base_url: '',
  allowed_hosts: '',
  instance_name: '',
  cluster: { dead_after: '15s' },
  trust_proxy: false,
  log_level: 'info',
  retention: { raw: '7d', hourly: '90d' },
  puid: 500,
  pgid: 500,
  umask: '022',
} as const;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Control characters (line breaks among them) and the Unicode line and paragraph separators. */
const UNPRINTABLE = /\p{Cc}|[\u2028\u2029]/u;

/**
 * A key as the user wrote it, safe inside a one-line ConfigError message: a key holding a line break
 * or another control character is shown quoted, with those characters escaped.
 */
export function keyLabel(key: string): string {
  if (!UNPRINTABLE.test(key)) return key;
  return JSON.stringify(key).replace(
    new RegExp(UNPRINTABLE.source, 'gu'),
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
