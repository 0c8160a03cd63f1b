import * as os from 'node:os';
import * as path from 'node:path';
import { parseDurationSeconds } from '@monitor/domain';
import { parsePostgresUrl } from './database-url';
import { readAllowedHosts } from './allowed-hosts';
import {
  checkReferences,
  readChannels,
  readMaintenance,
  readSensors,
  readSites,
  readStatusPages,
} from './config-sections';
import {
  CONFIG_DEFAULTS,
  ConfigError,
  ConfigSource,
  keyLabel,
  LOG_LEVELS,
  ListenAddress,
  LogLevel,
  MonitorConfig,
} from './monitor-config';

/** Command-line flags that carry configuration. */
export interface ConfigFlags {
  listen?: string;
  dataDir?: string;
  databaseUrl?: string;
  config?: string;
  logLevel?: string;
}

export interface ConfigInputs {
  /** The parsed YAML document, when a file was given. */
  file?: { path: string; data: unknown };
  env: Record<string, string | undefined>;
  flags: ConfigFlags;
  cwd: string;
}

const FILE_KEYS = [
  'listen',
  'data_dir',
  'database_url',
  'base_url',
  'allowed_hosts',
  'instance_name',
  'cluster',
  'trust_proxy',
  'log_level',
  'retention',
  'sites',
  'channels',
  'sensors',
  'maintenance',
  'status_pages',
] as const;
const RETENTION_KEYS = ['raw', 'hourly'] as const;
const CLUSTER_KEYS = ['dead_after'] as const;

/** Environment variables and flags for each scalar key, in the documented spelling. */
const SCALAR_SOURCES = {
  listen: { env: 'MONITOR_LISTEN', flag: 'listen', flagName: '--listen' },
  data_dir: { env: 'MONITOR_DATA_DIR', flag: 'dataDir', flagName: '--data-dir' },
  database_url: { env: 'MONITOR_DATABASE_URL', flag: 'databaseUrl', flagName: '--database-url' },
  base_url: { env: 'MONITOR_BASE_URL' },
  allowed_hosts: { env: 'MONITOR_ALLOWED_HOSTS' },
  instance_name: { env: 'MONITOR_INSTANCE_NAME' },
  trust_proxy: { env: 'MONITOR_TRUST_PROXY' },
  log_level: { env: 'MONITOR_LOG_LEVEL', flag: 'logLevel', flagName: '--log-level' },
} as const satisfies Record<string, { env: string; flag?: keyof ConfigFlags; flagName?: string }>;

type ScalarKey = keyof typeof SCALAR_SOURCES;

interface Layered {
  value: unknown;
  source: ConfigSource;
  origin: string;
}

const invalid = (key: string, origin: string, problem: string): ConfigError =>
  new ConfigError(`invalid configuration: ${key}${origin ? ` (from ${origin})` : ''}: ${problem}`);

const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** Which file to read: the --config flag wins over MONITOR_CONFIG. Null when neither is set. */
export function configFilePath(flags: ConfigFlags, env: Record<string, string | undefined>, cwd: string) {
  const chosen = flags.config ?? env.MONITOR_CONFIG;
  return chosen ? path.resolve(cwd, chosen) : null;
}

/** defaults < YAML file < environment < flags, then validated. Throws ConfigError with one line. */
export function resolveConfig(inputs: ConfigInputs): MonitorConfig {
  const fileData = readFileMapping(inputs.file);
  const layer = (key: ScalarKey): Layered => {
    const sources = SCALAR_SOURCES[key];
    const flagKey = 'flag' in sources ? sources.flag : undefined;
    const flagValue = flagKey ? inputs.flags[flagKey] : undefined;
    if (flagValue !== undefined && 'flagName' in sources) {
      return { value: flagValue, source: 'flag', origin: sources.flagName };
    }
    const envValue = inputs.env[sources.env];
    if (envValue !== undefined && envValue !== '')
      return { value: envValue, source: 'env', origin: sources.env };
    if (fileData[key] !== undefined) return { value: fileData[key], source: 'file', origin: 'config file' };
    return { value: CONFIG_DEFAULTS[key], source: 'default', origin: '' };
  };

  const sites = readSites(fileData.sites);
  const channels = readChannels(fileData.channels);
  const sensors = readSensors(fileData.sensors);
  const maintenance = readMaintenance(fileData.maintenance);
  const statusPages = readStatusPages(fileData.status_pages);
  checkReferences(sites, channels, sensors, maintenance, statusPages);

  const listen = parseListen(layer('listen'));
  return {
    listen,
    data_dir: parseDataDir(layer('data_dir'), inputs.cwd),
    database_url: parseDatabaseUrl(layer('database_url')),
    config_file: inputs.file?.path ?? null,
    base_url: parseBaseUrl(layer('base_url')),
    allowed_hosts: parseAllowedHosts(layer('allowed_hosts')),
    instance_name: parseInstanceName(layer('instance_name'), listen),
    cluster: parseCluster(fileData.cluster),
    trust_proxy: parseBoolean('trust_proxy', layer('trust_proxy')),
    log_level: parseLogLevel(layer('log_level')),
    retention: parseRetention(fileData.retention),
    sites,
    channels,
    sensors,
    maintenance,
    status_pages: statusPages,
    identity: parseIdentity(inputs.env),
    admin_password: parseAdminPassword(inputs.env.MONITOR_ADMIN_PASSWORD),
  };
}

function readFileMapping(file: ConfigInputs['file']): Record<string, unknown> {
  if (!file || file.data === null || file.data === undefined) return {};
  if (typeof file.data !== 'object' || Array.isArray(file.data)) {
    throw new ConfigError(`invalid configuration: ${file.path}: the top level must be a mapping of keys`);
  }
  const data = file.data as Record<string, unknown>;
  for (const key of Object.keys(data)) {
    if (!(FILE_KEYS as readonly string[]).includes(key)) {
      throw new ConfigError(`invalid configuration: ${keyLabel(key)}: unknown key (in ${file.path})`);
    }
  }
  return data;
}

function parseListen({ value, origin }: Layered): ListenAddress {
  const text = typeof value === 'number' ? `:${value}` : value;
  const match =
    typeof text === 'string' ? /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(text.trim()) : null;
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) {
    throw invalid('listen', origin, `must be HOST:PORT with a port from 0 to 65535 (got ${show(value)})`);
  }
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

function parseDataDir({ value, origin }: Layered, cwd: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid('data_dir', origin, `must be a directory path (got ${show(value)})`);
  }
  return path.resolve(cwd, value.trim());
}

/** Empty keeps SQLite. The message never repeats the value: it may hold a password. */
function parseDatabaseUrl({ value, origin }: Layered): string | null {
  if (value === null || value === '') return null;
  if (typeof value === 'string' && parsePostgresUrl(value)) return value.trim();
  throw invalid(
    'database_url',
    origin,
    'must be a postgres:// or postgresql:// URL with a host, or empty for the embedded SQLite database',
  );
}

function parseBaseUrl({ value, origin }: Layered): string {
  if (value === null || value === '') return '';
  // URL drops an empty query or fragment ("https://x/?"), so look for the characters themselves.
  if (typeof value === 'string' && !/[?#]/.test(value)) {
    try {
      const url = new URL(value.trim());
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash) {
        return url.toString().replace(/\/+$/, '');
      }
    } catch {
      // falls through to the error below
    }
  }
  throw invalid(
    'base_url',
    origin,
    `must be an http or https address without query, or empty (got ${show(value)})`,
  );
}

function parseAllowedHosts({ value, origin }: Layered): string[] {
  const read = readAllowedHosts(value);
  if ('problem' in read) throw invalid('allowed_hosts', origin, read.problem);
  return read.hosts;
}

/**
 * Printable, 1 to 64 characters; empty takes `<hostname>:<port>`, or `<hostname>:pid<pid>` for
 * port 0 (a port chosen at start, unknown while the name is needed).
 */
function parseInstanceName({ value, origin }: Layered, listen: ListenAddress): string {
  if (value === null || value === '')
    return `${os.hostname()}:${listen.port === 0 ? `pid${process.pid}` : listen.port}`;
  const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : null;
  if (text === null || text === '' || [...text].length > 64 || UNPRINTABLE_NAME.test(text)) {
    throw invalid(
      'instance_name',
      origin,
      `must be 1 to 64 printable characters, or empty for <hostname>:<port> (got ${show(value)})`,
    );
  }
  return text;
}

const UNPRINTABLE_NAME = /\p{Cc}|[\u2028\u2029]/u;

function parseCluster(raw: unknown): MonitorConfig['cluster'] {
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw invalid('cluster', 'config file', 'must be a mapping with dead_after');
  }
  const given = (raw ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!(CLUSTER_KEYS as readonly string[]).includes(key)) {
      throw invalid(`cluster.${keyLabel(key)}`, 'config file', 'unknown key');
    }
  }
  const value = given.dead_after ?? CONFIG_DEFAULTS.cluster.dead_after;
  // A bare number is seconds here (retention's bare numbers are days).
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(String(value))
    ? Math.round(Number(value))
    : parseDurationSeconds(value);
  if (seconds === null || seconds < 2 || seconds > 3600) {
    throw invalid(
      'cluster.dead_after',
      'config file',
      `must be a duration from 2s to 1h like 15s (got ${show(value)})`,
    );
  }
  return { dead_after_seconds: seconds };
}

function parseBoolean(key: string, { value, origin }: Layered): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(text)) return true;
    if (['false', '0', 'no', 'off'].includes(text)) return false;
  }
  throw invalid(key, origin, `must be true or false (got ${show(value)})`);
}

function parseLogLevel({ value, origin }: Layered): LogLevel {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (typeof text === 'string' && (LOG_LEVELS as readonly string[]).includes(text)) return text as LogLevel;
  throw invalid('log_level', origin, `must be one of ${LOG_LEVELS.join(', ')} (got ${show(value)})`);
}

function parseRetention(raw: unknown): MonitorConfig['retention'] {
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw invalid('retention', 'config file', 'must be a mapping with raw and hourly');
  }
  const given = (raw ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!(RETENTION_KEYS as readonly string[]).includes(key)) {
      throw invalid(`retention.${key}`, 'config file', 'unknown key');
    }
  }
  const seconds = (key: (typeof RETENTION_KEYS)[number]): number => {
    const value = given[key] ?? CONFIG_DEFAULTS.retention[key];
    const parsed = parseDurationSeconds(value);
    if (parsed === null) {
      throw invalid(
        `retention.${key}`,
        'config file',
        `must be a number of days or a duration like 36h or 7d (got ${show(value)})`,
      );
    }
    return parsed;
  };
  const rawSeconds = seconds('raw');
  const hourlySeconds = seconds('hourly');
  if (rawSeconds < 3600) throw invalid('retention.raw', 'config file', 'must be at least 1h');
  if (hourlySeconds < rawSeconds) {
    throw invalid('retention.hourly', 'config file', 'must be at least as long as retention.raw');
  }
  return { raw_seconds: rawSeconds, hourly_seconds: hourlySeconds };
}

function parseIdentity(env: Record<string, string | undefined>): MonitorConfig['identity'] {
  const id = (name: 'PUID' | 'PGID', fallback: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    if (!/^\d{1,10}$/.test(text.trim()) || Number(text) > 2 ** 31 - 1) {
      throw invalid(name, name, `must be a numeric id from 0 to 2147483647 (got ${show(text)})`);
    }
    return Number(text);
  };
  const umaskText = env.UMASK === undefined || env.UMASK === '' ? CONFIG_DEFAULTS.umask : env.UMASK.trim();
  if (!/^0?[0-7]{3}$/.test(umaskText)) {
    throw invalid('UMASK', 'UMASK', `must be an octal mask like 022 (got ${show(env.UMASK)})`);
  }
  return {
    puid: id('PUID', CONFIG_DEFAULTS.puid),
    pgid: id('PGID', CONFIG_DEFAULTS.pgid),
    umask: parseInt(umaskText, 8),
  };
}

/** The same rules as any password; the message never repeats the value. */
function parseAdminPassword(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  if ([...value].length < 8) {
    throw invalid('MONITOR_ADMIN_PASSWORD', 'MONITOR_ADMIN_PASSWORD', 'must be at least 8 characters');
  }
  if (Buffer.byteLength(value, 'utf8') > 72) {
    throw invalid('MONITOR_ADMIN_PASSWORD', 'MONITOR_ADMIN_PASSWORD', 'must be at most 72 bytes');
  }
  return value;
}
