import type {
  BackupColumn,
  BackupDays,
  BackupRef,
  BackupRollupBlock,
  BackupScope,
  BackupSite,
  BackupTable,
  BackupChannel,
  BackupSensor,
} from '@monitor/contracts';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BACKUP_TABLES } from '@monitor/contracts';
import {
  CHANNEL_DEFAULTS,
  CHANNEL_FIELDS,
  type ChannelType,
  type FieldRule,
  InvalidInputError,
  normalizeTags,
  SENSOR_DEFAULTS,
  SENSOR_FIELDS,
  targetRequired,
  type SensorType,
} from '@monitor/domain';
import { MIGRATION_NAMES } from '../core/database/migrations';
import type { AccountRecord } from '../users/user-rows.sql';

/**
 * The backup document's rules that need no database: versions, the file name, references by
 * name, the compact rollup blocks, and the shape of every row a restore accepts.
 */

/** The schema a document was written from: how many migrations its build had applied. */
export const SCHEMA_VERSION = MIGRATION_NAMES.length;

/** Download name: a constant and the date, never anything from the request. */
export const BACKUP_FILE_PREFIX = 'monitor-backup';
export const backupFileName = (nowMs: number): string =>
  `${BACKUP_FILE_PREFIX}-${new Date(nowMs).toISOString().slice(0, 10)}.json`;

/** Name of the copy of the database made before a restore writes anything. */
export const safetyCopyName = (databaseFile: string, nowMs: number): string =>
  `${databaseFile}.before-restore-${new Date(nowMs).toISOString().replace(/[-:]/g, '').replace('.', '')}`;

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** The prefix of settings keys that are bookkeeping of this installation's own data. */
export const BOOKKEEPING_PREFIX = 'history.';

/** Settings keys that are bookkeeping of this installation's own data, not configuration. */
export const isBookkeepingSetting = (key: string): boolean => key.startsWith(BOOKKEEPING_PREFIX);

/** Limits on the tables a restore keeps in memory while it checks the document. */
export const ROW_LIMITS = {
  settings: 1_000,
  sites: 10_000,
  channels: 10_000,
  sensors: 100_000,
  accounts: 10_000,
} as const;

/** The first bucket a history backup of `days` includes, per tier; null for all. */
export function historyCutoffs(
  days: BackupDays,
  nowMs: number,
): { hourly: number; daily: number; incidents: number } | null {
  if (days === 'all') return null;
  const span = Number(days) * DAY_MS;
  return {
    hourly: Math.floor(nowMs / HOUR_MS) * HOUR_MS - span,
    daily: Math.floor(nowMs / DAY_MS) * DAY_MS - span,
    incidents: nowMs - span,
  };
}

// ---------------------------------------------------------------------------------------------
// Header

export interface BackupHeader {
  format_version: number;
  schema_version: number;
  scope?: BackupScope;
}

/** Checks one header field as it arrives; the three required ones must come before any table. */
export function checkHeaderField(key: string, value: unknown): void {
  switch (key) {
    case 'format':
      if (value !== BACKUP_FORMAT)
        throw new InvalidInputError(`not a backup of this service: format must be "${BACKUP_FORMAT}"`);
      return;
    case 'format_version':
      if (!Number.isInteger(value) || (value as number) < 1)
        throw new InvalidInputError('format_version must be a positive integer');
      if ((value as number) > BACKUP_FORMAT_VERSION)
        throw new InvalidInputError(
          `format_version ${value as number} is newer than this build reads (${BACKUP_FORMAT_VERSION}); nothing was restored`,
        );
      return;
    case 'schema_version':
      if (!Number.isInteger(value) || (value as number) < 1)
        throw new InvalidInputError('schema_version must be a positive integer');
      if ((value as number) > SCHEMA_VERSION)
        throw new InvalidInputError(
          `schema_version ${value as number} is newer than this build's database (${SCHEMA_VERSION}); nothing was restored`,
        );
      return;
    case 'created_at':
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
        throw new InvalidInputError('created_at must be an ISO 8601 time');
      return;
    case 'scope':
      if (value !== 'config' && value !== 'history')
        throw new InvalidInputError('scope must be "config" or "history"');
      return;
    case 'days':
      if (value !== 'all' && value !== 7 && value !== 30 && value !== 90)
        throw new InvalidInputError('days must be 7, 30, 90 or "all"');
      return;
    default:
      throw new InvalidInputError(`unknown key "${key}" in the document`);
  }
}

export const REQUIRED_HEADER = ['format', 'format_version', 'schema_version'] as const;
export const isTable = (key: string): key is BackupTable =>
  (BACKUP_TABLES as readonly string[]).includes(key);

// ---------------------------------------------------------------------------------------------
// References by name

/** Identity of a named entry: its name and its position among entries of that name (1-based). */
export const entryKey = (name: string, seq = 1): string => `${seq}\u0000${name}`;

/** How a backup refers to an entry: its name, with `seq` only when the name is shared. */
export const refOf = (name: string, seq: number): BackupRef => (seq === 1 ? name : { name, seq });

/** Numbers entries sharing a name 1, 2, 3… in the order given (ids ascending). */
export function sequenceByName<T>(items: T[], nameOf: (item: T) => string): Map<T, number> {
  const seen = new Map<string, number>();
  const result = new Map<T, number>();
  for (const item of items) {
    const name = nameOf(item);
    const seq = (seen.get(name) ?? 0) + 1;
    seen.set(name, seq);
    result.set(item, seq);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Rollup blocks

/** A stored bucket: bucket_start, count, up, latency_sum, latency_min, latency_max. */
export type BucketRow = [number, number, number, number, number | null, number | null];

/** Latencies are kept to 1 µs: the probes measure to 10 µs, so this only drops float noise. */
export const roundLatency = (value: number | null): number | null =>
  value === null ? null : Math.round(value * 1000) / 1000;

/** Missing buckets up to this many in a row are written as gaps; a longer run starts a new block. */
const MAX_GAP = 6;

/** A block holds at most this many buckets (a month of hours), so a writer keeps little in hand. */
export const BLOCK_BUCKETS = 744;

type Block = Omit<BackupRollupBlock, 'sensor'>;

/**
 * Turns one sensor's buckets (ascending bucket_start, pushed one at a time) into blocks of
 * consecutive buckets `stepMs` apart, handing each block over as soon as it is complete. A column
 * whose values are all equal is written as one value.
 */
export class BlockEncoder {
  private columns: (number | null)[][] = [[], [], [], [], []];
  private start = 0;
  private next = 0;

  constructor(
    private readonly stepMs: number,
    private readonly emit: (block: Block) => void,
  ) {}

  push(at: number, count: number, up: number, sum: number, min: number | null, max: number | null): void {
    const held = this.columns[0].length;
    const offset = (at - this.next) / this.stepMs;
    if (held === 0 || offset % 1 !== 0 || offset < 0 || offset > MAX_GAP || held + offset >= BLOCK_BUCKETS) {
      this.flush();
      this.start = at;
    }
    // After a flush this is a fresh block.
    const columns = this.columns;
    if (columns[0].length > 0) {
      for (let gap = 0; gap < offset; gap++) {
        columns[0].push(0);
        columns[1].push(0);
        columns[2].push(0);
        columns[3].push(null);
        columns[4].push(null);
      }
    }
    columns[0].push(count);
    columns[1].push(up);
    columns[2].push(roundLatency(sum));
    columns[3].push(roundLatency(min));
    columns[4].push(roundLatency(max));
    this.next = at + this.stepMs;
  }

  /** Hands over the block in progress, if any. */
  flush(): void {
    const columns = this.columns;
    if (columns[0].length === 0) return;
    this.columns = [[], [], [], [], []];
    this.emit({
      start: new Date(this.start).toISOString(),
      step: this.stepMs / 1000,
      n: columns[0].length,
      count: collapse(columns[0]),
      up: collapse(columns[1]),
      latency_sum: collapse(columns[2]),
      latency_min: collapse(columns[3]),
      latency_max: collapse(columns[4]),
    });
  }
}

/** Every block of one sensor's buckets at once (see BlockEncoder). */
export function encodeBlocks(rows: BucketRow[], stepMs: number): Block[] {
  const blocks: Block[] = [];
  const encoder = new BlockEncoder(stepMs, (block) => blocks.push(block));
  for (const row of rows) encoder.push(...row);
  encoder.flush();
  return blocks;
}

const collapse = (values: (number | null)[]): BackupColumn =>
  values.every((v) => v === values[0]) ? values[0] : values;

/** Most buckets one block may hold (ten years of hours). */
export const MAX_BLOCK_BUCKETS = 87_600;

/** A checked rollup block: how many buckets it holds (gaps left out) and the time span it covers. */
export interface DecodedBlock {
  sensor: BackupRef;
  first: number;
  last: number;
  buckets: number;
}

/** Receives each bucket of a block (gaps left out). */
export type BucketSink = (
  start: number,
  count: number,
  up: number,
  sum: number,
  min: number | null,
  max: number | null,
) => void;

// ---------------------------------------------------------------------------------------------
// Row checks

/** Reads one row's fields, refusing wrong types and unknown fields with a message naming both. */
export class RowReader {
  private readonly seen = new Set<string>();
  private label: string;

  constructor(
    private readonly table: string,
    private readonly index: number,
    private readonly row: unknown,
  ) {
    this.label = `${table} row ${index}`;
    if (typeof row !== 'object' || row === null || Array.isArray(row)) throw this.fail('must be an object');
  }

  /** Adds the row's name to error messages once it is known. */
  named(name: string): void {
    this.label = `${this.table} row ${this.index} ("${name}")`;
  }

  fail(problem: string): InvalidInputError {
    return new InvalidInputError(`${this.label}: ${problem}`);
  }

  private get(field: string): unknown {
    this.seen.add(field);
    return (this.row as Record<string, unknown>)[field];
  }

  /** A field's value as given (marked as read). */
  raw(field: string): unknown {
    return this.get(field);
  }

  /** A field of the sensor or channel definition; absent or null takes the fallback when there is one. */
  follows<T>(field: string, rule: FieldRule, fallback?: T): T {
    const value = this.get(field);
    if ((value === undefined || value === null) && fallback !== undefined) return fallback;
    const problem = rule.check(value);
    if (problem !== null) throw this.fail(`${field} ${problem}`);
    return value as T;
  }

  string(field: string, options: { fallback?: string; max?: number; nonEmpty?: boolean } = {}): string {
    const value = this.get(field);
    if (value === undefined && options.fallback !== undefined) return options.fallback;
    if (typeof value !== 'string') throw this.fail(`${field} must be a string`);
    if (options.nonEmpty && value.trim() === '') throw this.fail(`${field} must not be empty`);
    if (options.max !== undefined && value.length > options.max)
      throw this.fail(`${field} must be at most ${options.max} characters`);
    return value;
  }

  nullableString(field: string, max = 10_000): string | null {
    const value = this.get(field);
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') throw this.fail(`${field} must be a string or null`);
    if (value.length > max) throw this.fail(`${field} must be at most ${max} characters`);
    return value;
  }

  int(field: string, min: number, max: number, fallback?: number): number {
    const value = this.get(field);
    if (value === undefined && fallback !== undefined) return fallback;
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
      throw this.fail(`${field} must be an integer from ${min} to ${max}`);
    return value as number;
  }

  nullableInt(field: string, min: number, max: number): number | null {
    const value = this.get(field);
    if (value === undefined || value === null) return null;
    return this.int(field, min, max);
  }

  nullableNumber(field: string, min: number, max: number): number | null {
    const value = this.get(field);
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
      throw this.fail(`${field} must be a number from ${min} to ${max} or null`);
    return value;
  }

  bool(field: string, fallback?: boolean): boolean {
    const value = this.get(field);
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'boolean') throw this.fail(`${field} must be true or false`);
    return value;
  }

  oneOf<T extends string>(field: string, allowed: readonly T[], fallback?: T): T {
    const value = this.get(field);
    if (value === undefined && fallback !== undefined) return fallback;
    if (!allowed.includes(value as T)) throw this.fail(`${field} must be one of ${allowed.join(', ')}`);
    return value as T;
  }

  object(field: string, fallback?: Record<string, unknown>): Record<string, unknown> {
    const value = this.get(field);
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw this.fail(`${field} must be an object`);
    return value as Record<string, unknown>;
  }

  array(field: string, fallback?: unknown[]): unknown[] {
    const value = this.get(field);
    if (value === undefined && fallback !== undefined) return fallback;
    if (!Array.isArray(value)) throw this.fail(`${field} must be an array`);
    return value;
  }

  /** Milliseconds of an ISO 8601 UTC time. */
  time(field: string): number {
    const value = this.get(field);
    const ms = typeof value === 'string' ? parseIsoTime(value) : NaN;
    if (Number.isNaN(ms)) throw this.fail(`${field} must be an ISO 8601 time such as 2026-01-31T12:00:00Z`);
    return ms;
  }

  nullableTime(field: string): number | null {
    const value = this.get(field);
    if (value === undefined || value === null) return null;
    return this.time(field);
  }

  ref(field: string, value: unknown = this.get(field)): BackupRef {
    if (typeof value === 'string' && value.trim() !== '') return value;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const { name, seq, ...rest } = value as Record<string, unknown>;
      if (
        typeof name === 'string' &&
        name.trim() !== '' &&
        Number.isInteger(seq) &&
        (seq as number) >= 1 &&
        Object.keys(rest).length === 0
      )
        return seq === 1 ? name : { name, seq: seq as number };
    }
    throw this.fail(`${field} must be a name, or {name, seq} for a name several entries share`);
  }

  /** Every field of the row must have been read. */
  done(): void {
    for (const field of Object.keys(this.row as object))
      if (!this.seen.has(field)) throw this.fail(`unknown field "${field}"`);
  }
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;

export function parseIsoTime(text: string): number {
  return ISO_TIME.test(text) ? Date.parse(text) : NaN;
}

export const isoOrNull = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString();

export const refKey = (ref: BackupRef): string =>
  typeof ref === 'string' ? entryKey(ref) : entryKey(ref.name, ref.seq);

export const refLabel = (ref: BackupRef): string =>
  typeof ref === 'string' ? `"${ref}"` : `"${ref.name}" (seq ${ref.seq})`;

// --- sites

export function readSite(index: number, row: unknown): BackupSite {
  const r = new RowReader('sites', index, row);
  const name = r.string('name', { nonEmpty: true, max: 200 }).trim();
  r.named(name);
  const site: BackupSite = {
    name,
    kind: r.oneOf('kind', ['local', 'external'] as const, 'local'),
    lat: r.nullableNumber('lat', -90, 90),
    lon: r.nullableNumber('lon', -180, 180),
    sample: r.bool('sample', false),
  };
  if ((site.lat === null) !== (site.lon === null))
    throw r.fail('lat and lon must both be given or both be null');
  r.done();
  return site;
}

// --- channels

/** A channel as read from a document: checked, its `seq` filled in. */
export interface ChannelRow extends BackupChannel {
  seq: number;
}

export function readChannel(index: number, row: unknown): ChannelRow {
  const r = new RowReader('channels', index, row);
  const name = r.follows<string>('name', CHANNEL_FIELDS.name).trim();
  r.named(name);
  const channel: ChannelRow = {
    name,
    seq: r.int('seq', 1, 1_000_000, 1),
    type: r.follows<ChannelType>('type', CHANNEL_FIELDS.type),
    config: r.follows('config', CHANNEL_FIELDS.config, { ...CHANNEL_DEFAULTS.config }),
    enabled: r.follows('enabled', CHANNEL_FIELDS.enabled, CHANNEL_DEFAULTS.enabled),
    title_template: r.follows(
      'title_template',
      CHANNEL_FIELDS.title_template,
      CHANNEL_DEFAULTS.title_template,
    ),
    body_template: r.follows('body_template', CHANNEL_FIELDS.body_template, CHANNEL_DEFAULTS.body_template),
  };
  r.done();
  return channel;
}

// --- sensors

/** A sensor as read from a document: checked, its `seq` filled in. */
export interface SensorRow extends BackupSensor {
  seq: number;
}

export function readSensor(index: number, row: unknown): SensorRow {
  const r = new RowReader('sensors', index, row);
  const name = r.follows<string>('name', SENSOR_FIELDS.name).trim();
  r.named(name);
  const parentValue = r.raw('parent');
  const parent = parentValue === undefined || parentValue === null ? null : r.ref('parent', parentValue);
  const sensor: SensorRow = {
    name,
    seq: r.int('seq', 1, 1_000_000, 1),
    type: r.follows<SensorType>('type', SENSOR_FIELDS.type),
    target: r.follows<string>('target', SENSOR_FIELDS.target).trim(),
    interval: r.follows('interval', SENSOR_FIELDS.interval, SENSOR_DEFAULTS.interval),
    retries: r.follows('retries', SENSOR_FIELDS.retries, SENSOR_DEFAULTS.retries),
    reminder_every: r.follows('reminder_every', SENSOR_FIELDS.reminder_every, SENSOR_DEFAULTS.reminder_every),
    group: r.follows('group', SENSOR_FIELDS.group, SENSOR_DEFAULTS.group).trim(),
    tags: normalizeTags(r.follows('tags', SENSOR_FIELDS.tags, SENSOR_DEFAULTS.tags)),
    site: r.follows('site', SENSOR_FIELDS.site, SENSOR_DEFAULTS.site).trim(),
    parent,
    enabled: r.follows('enabled', SENSOR_FIELDS.enabled, SENSOR_DEFAULTS.enabled),
    options: r.follows('options', SENSOR_FIELDS.options, { ...SENSOR_DEFAULTS.options }),
    channels: r
      .follows<unknown[]>('channels', SENSOR_FIELDS.channels, [])
      .map((ref) => r.ref('channels', ref)),
    sort_order: r.int('sort_order', 0, Number.MAX_SAFE_INTEGER, 0),
    sample: r.bool('sample', false),
  };
  if (sensor.target === '' && targetRequired(sensor.type)) throw r.fail('target must not be empty');
  if (sensor.parent !== null && refKey(sensor.parent) === entryKey(sensor.name, sensor.seq))
    throw r.fail('a sensor cannot be its own parent');
  r.done();
  return sensor;
}

// --- accounts

/** An account as the restore writes it: the users feature's own record of one. */
export type AccountRow = AccountRecord;

const USERNAME = /^[\p{L}\p{N}._@-]{1,64}$/u;
const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const BASE32 = /^[A-Z2-7]+=*$/;

export function readAccount(index: number, row: unknown): AccountRow {
  const r = new RowReader('accounts', index, row);
  const username = r.string('username');
  if (!USERNAME.test(username)) throw r.fail('username must be 1 to 64 letters, digits or . _ @ -');
  r.named(username);
  const passwordHash = r.string('password_hash');
  if (!BCRYPT_HASH.test(passwordHash)) throw r.fail('password_hash must be a bcrypt hash');
  const totpSecret = r.nullableString('totp_secret', 256);
  if (totpSecret !== null && !BASE32.test(totpSecret)) throw r.fail('totp_secret must be base32 or null');
  const ui = r.object('ui', {});
  if (!Object.values(ui).every((v) => typeof v === 'string')) throw r.fail('ui must be an object of strings');
  const account: AccountRow = {
    username,
    role: r.oneOf('role', ['admin', 'operator', 'viewer'] as const),
    disabled: r.bool('disabled', false),
    password_hash: passwordHash,
    token_epoch: r.int('token_epoch', 0, MAX_INT32, 0),
    totp_secret: totpSecret,
    totp_enabled: r.bool('totp_enabled', false),
    totp_last_step: r.nullableInt('totp_last_step', 0, Number.MAX_SAFE_INTEGER),
    ui: ui as Record<string, string>,
    tour_version: r.int('tour_version', 0, 1_000_000, 0),
    last_login_at: r.nullableTime('last_login_at'),
    created_at: r.nullableTime('created_at'),
    recovery_codes: r.array('recovery_codes', []).map((code, i) => {
      const c = code as Record<string, unknown>;
      const hash = typeof code === 'object' && code !== null ? c.code_hash : undefined;
      const keys = typeof code === 'object' && code !== null ? Object.keys(code) : [];
      if (
        typeof hash !== 'string' ||
        !SHA256_HEX.test(hash) ||
        keys.some((k) => k !== 'code_hash' && k !== 'used_at')
      )
        throw r.fail(`recovery_codes[${i}] must be {code_hash: SHA-256 hex, used_at}`);
      const usedAt = c.used_at === undefined || c.used_at === null ? null : parseIsoTime(String(c.used_at));
      if (usedAt !== null && (typeof c.used_at !== 'string' || Number.isNaN(usedAt)))
        throw r.fail(`recovery_codes[${i}].used_at must be an ISO 8601 time or null`);
      return { code_hash: hash, used_at: usedAt };
    }),
  };
  if (account.totp_enabled && account.totp_secret === null) throw r.fail('totp_enabled needs a totp_secret');
  r.done();
  return account;
}

// --- incidents

export interface IncidentRow {
  sensor: BackupRef;
  started_at: number;
  resolved_at: number | null;
  cause: string;
  acknowledged: boolean;
  acknowledged_by: string | null;
  acknowledged_at: number | null;
  note: string;
  reconstructed: boolean;
}

export function readIncident(index: number, row: unknown): IncidentRow {
  const r = new RowReader('incidents', index, row);
  const incident: IncidentRow = {
    sensor: r.ref('sensor'),
    started_at: r.time('started_at'),
    resolved_at: r.nullableTime('resolved_at'),
    cause: r.string('cause', { fallback: '', max: 10_000 }),
    acknowledged: r.bool('acknowledged', false),
    acknowledged_by: r.nullableString('acknowledged_by', 200),
    acknowledged_at: r.nullableTime('acknowledged_at'),
    note: r.string('note', { fallback: '', max: 10_000 }),
    reconstructed: r.bool('reconstructed', false),
  };
  if (incident.resolved_at !== null && incident.resolved_at < incident.started_at)
    throw r.fail('resolved_at is before started_at');
  r.done();
  return incident;
}

// --- rollup blocks

const COLUMNS = ['count', 'up', 'latency_sum', 'latency_min', 'latency_max'] as const;

/** Checks a block; with `sink`, hands it every bucket. */
export function readRollupBlock(table: string, index: number, row: unknown, sink?: BucketSink): DecodedBlock {
  const r = new RowReader(table, index, row);
  const sensor = r.ref('sensor');
  const start = r.time('start');
  const step = r.int('step', 1, 366 * 86_400);
  const n = r.int('n', 1, MAX_BLOCK_BUCKETS);
  const columns = COLUMNS.map((name) => {
    const value = r.raw(name);
    if (Array.isArray(value) && value.length !== n) throw r.fail(`${name} must hold n (${n}) values`);
    return value;
  });
  r.done();
  // The loop below touches no globals (Array, Number…): a restore checks millions of buckets.
  const [counts, ups, sums, mins, maxes] = columns.map((c) => (Array.isArray(c) ? (c as unknown[]) : null));
  const [count0, up0, sum0, min0, max0] = columns;
  const stepMs = step * 1000;
  let buckets = 0;
  for (let i = 0; i < n; i++) {
    const count = counts === null ? count0 : counts[i];
    const up = ups === null ? up0 : ups[i];
    const sum = sums === null ? sum0 : sums[i];
    const min = mins === null ? min0 : mins[i];
    const max = maxes === null ? max0 : maxes[i];
    if (!isWhole(count)) throw r.fail(`count[${i}] must be a whole number (0 marks a gap)`);
    if (count === 0) continue;
    if (!isWhole(up) || up > count) throw r.fail(`up[${i}] must be a whole number from 0 to count`);
    if (!isLatency(sum) || sum === null) throw r.fail(`latency_sum[${i}] must be a number of at least 0`);
    if (!isLatency(min) || !isLatency(max) || (min !== null && max !== null && min > max))
      throw r.fail(`latency_min[${i}] and latency_max[${i}] must be numbers (min ≤ max) or null`);
    buckets++;
    if (sink !== undefined) sink(start + i * stepMs, count, up, sum, min, max);
  }
  return { sensor, first: start, last: start + (n - 1) * stepMs, buckets };
}

/** Counts and epochs are 32-bit integer columns on PostgreSQL: larger ones are refused up front. */
const MAX_INT32 = 2_147_483_647;
const MAX_WHOLE = MAX_INT32;
const isWhole = (value: unknown): value is number =>
  typeof value === 'number' && value >= 0 && value <= MAX_WHOLE && value % 1 === 0;

/** null, or a finite number of at least 0 (`value - value` is NaN for the infinities). */
const isLatency = (value: unknown): value is number | null =>
  value === null || (typeof value === 'number' && value >= 0 && value - value === 0);
