import { DomainError } from '@monitor/domain';

/** A write the database could not take: 507 when storage is full, 503 when it is busy or failing. */
export interface StorageFailure {
  status: 503 | 507;
  /** SQLite's extended code or the errno, e.g. SQLITE_FULL, SQLITE_IOERR_WRITE, ENOSPC. */
  code: string;
  /** For operators and clients: what happened, never row contents or SQL. */
  reason: string;
}

/** An answer about storage that the client may read as it is (the `/healthz` storage problem). */
export class StorageUnavailableError extends DomainError {
  constructor(
    readonly status: 503 | 507,
    message: string,
  ) {
    super(message);
  }
}

const FULL = /^(SQLITE_FULL|ENOSPC|EDQUOT)$/;
const FAILING = /^(SQLITE_(BUSY|LOCKED|IOERR|READONLY|CANTOPEN|PROTOCOL)(_\w+)?|EIO|EROFS)$/;

/** The SQLite or errno code of an error, looking through TypeORM's QueryFailedError. */
export function storageErrorCode(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const own = (error as { code?: unknown }).code;
  if (typeof own === 'string') return own;
  const driver = (error as { driverError?: { code?: unknown } }).driverError?.code;
  return typeof driver === 'string' ? driver : null;
}

/** Classifies an error of a database write; null when it is not about storage. */
export function classifyStorageError(error: unknown): StorageFailure | null {
  const code = storageErrorCode(error);
  if (code === null) return null;
  if (FULL.test(code)) return { status: 507, code, reason: `${code}: the disk is full` };
  if (!FAILING.test(code)) return null;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return { status: 503, code, reason: `${code}: the database is locked by another writer` };
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS')
    return { status: 503, code, reason: `${code}: the database cannot be written` };
  return { status: 503, code, reason: `${code}: the disk failed to read or write` };
}

/** The `{error}` answer to a write that failed for a storage reason; null for any other error. */
export function storageErrorResponse(
  error: unknown,
): { status: number; message: string; cause: string } | null {
  const failure = classifyStorageError(error);
  if (!failure) return null;
  const message =
    failure.status === 507
      ? 'insufficient storage: the disk holding the database is full; nothing was saved'
      : `database temporarily unavailable (${failure.code}); nothing was saved, try again`;
  return { status: failure.status, message, cause: failure.reason };
}
