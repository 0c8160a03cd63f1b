import type { BackupChannel, BackupRef, BackupSensor, BackupSite } from '@monitor/contracts';
import {
  CHANNEL_DEFAULTS,
  CHANNEL_FIELDS,
  type ChannelType,
  type FieldRule,
  InvalidInputError,
  normalizeTags,
  SENSOR_DEFAULTS,
  SENSOR_FIELDS,
  type SensorField,
  targetRequired,
} from '@monitor/domain';
import type { IncidentRecord } from '../incidents/incident-rows.sql';
import type { AccountRecord } from '../users/user-rows.sql';
import { entryKey, parseIsoTime, refKey } from './backup-format';

/**
 * The rows of a backup document as a restore accepts them: one reader per table, each refusing
 * wrong types and unknown fields with a message naming the table, the row and the field.
 */

/** Counts and epochs are 32-bit integer columns on PostgreSQL: larger ones are refused up front. */
export const MAX_INT32 = 2_147_483_647;

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

/** A default as a row gets it: its own copy, so no two rows share one array or object. */
const freshDefault = (value: unknown): unknown =>
  Array.isArray(value) ? [...value] : typeof value === 'object' && value !== null ? { ...value } : value;

/** A definition field's value as a backup stores it: text trimmed, tags tidied, channels as references. */
function tidySensorField(r: RowReader, field: SensorField, value: unknown): unknown {
  if (typeof value === 'string') return value.trim();
  if (field === 'tags') return normalizeTags(value as string[]);
  if (field === 'channels') return (value as unknown[]).map((ref) => r.ref('channels', ref));
  return value;
}

export function readSensor(index: number, row: unknown): SensorRow {
  const r = new RowReader('sensors', index, row);
  const name = r.follows<string>('name', SENSOR_FIELDS.name).trim();
  r.named(name);
  const parentValue = r.raw('parent');
  const parent = parentValue === undefined || parentValue === null ? null : r.ref('parent', parentValue);
  const seq = r.int('seq', 1, 1_000_000, 1);
  // Every other field of the sensor's definition, by its rule and with its default, in its order.
  const fields = {} as { [K in SensorField]: SensorRow[K] };
  for (const field of Object.keys(SENSOR_FIELDS) as SensorField[]) {
    if (field === 'name') continue;
    const fallback = freshDefault((SENSOR_DEFAULTS as Partial<Record<SensorField, unknown>>)[field]);
    (fields as Record<SensorField, unknown>)[field] = tidySensorField(
      r,
      field,
      r.follows(field, SENSOR_FIELDS[field], fallback),
    );
  }
  const sensor: SensorRow = {
    ...fields,
    name,
    seq,
    parent,
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

/** An incident as the incidents' rows store it, its sensor still a reference. */
export interface IncidentRow extends Omit<IncidentRecord, 'sensorId'> {
  sensor: BackupRef;
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
