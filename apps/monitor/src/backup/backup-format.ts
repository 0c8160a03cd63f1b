import type { BackupDays, BackupRef, BackupScope, BackupTable } from '@monitor/contracts';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BACKUP_TABLES } from '@monitor/contracts';
import { InvalidInputError } from '@monitor/domain';
import { MIGRATION_NAMES } from '../core/database/migrations';

/**
 * The backup document's rules that need no database: versions, the file name, the header and
 * references by name. Its rows are read by backup-row-reader.ts, its rollups encoded and read by
 * rollup-blocks.ts.
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

export const refKey = (ref: BackupRef): string =>
  typeof ref === 'string' ? entryKey(ref) : entryKey(ref.name, ref.seq);

export const refLabel = (ref: BackupRef): string =>
  typeof ref === 'string' ? `"${ref}"` : `"${ref.name}" (seq ${ref.seq})`;

// ---------------------------------------------------------------------------------------------
// Times

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;

export function parseIsoTime(text: string): number {
  return ISO_TIME.test(text) ? Date.parse(text) : NaN;
}

export const isoOrNull = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString();
