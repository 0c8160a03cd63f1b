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

const PG_DISK_FULL = '53100';
const PG_READ_ONLY = '25006';
const FULL = /^(SQLITE_FULL|ENOSPC|EDQUOT)$/;
const FAILING = /^(SQLITE_(BUSY|LOCKED|IOERR|READONLY|CANTOPEN|PROTOCOL)(_\w+)?|EIO|EROFS)$/;

/** PostgreSQL's SQLSTATEs for a lost or refused connection, a server shutting down or overloaded. */
const PG_UNREACHABLE = /^(08\d{3}|57P0[1-3]|53300)$/;
/** Network failures: about storage only when the PostgreSQL pool reports them (see markDatabaseError). */
const NETWORK = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE)$/;
/** The pg driver's own words for a connection that broke or could not be had; it gives no code. */
const PG_CONNECTION_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated unexpectedly)/;

const DATABASE = Symbol('database error');

/** Marks an error as coming from the database connection (network codes then mean "unreachable"). */
export function markDatabaseError<T>(error: T): T {
  if (typeof error === 'object' && error !== null) Object.defineProperty(error, DATABASE, { value: true });
  return error;
}

function databaseUnreachable(error: unknown, code: string | null): boolean {
  const inner = (error as { driverError?: unknown }).driverError ?? error;
  if (code !== null && PG_UNREACHABLE.test(code)) return true;
  if (code !== null && NETWORK.test(code))
    return (
      (error as Record<symbol, unknown>)[DATABASE] === true ||
      (inner as Record<symbol, unknown>)[DATABASE] === true
    );
  const message = (inner as { message?: unknown }).message;
  return typeof message === 'string' && PG_CONNECTION_MESSAGE.test(message);
}

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
  if (typeof error !== 'object' || error === null) return null;
  const code = storageErrorCode(error);
  if (databaseUnreachable(error, code)) {
    const shown = code ?? 'PG_CONNECTION';
    return { status: 503, code: shown, reason: `${shown}: the database server cannot be reached` };
  }
  if (code === null) return null;
  if (code === PG_DISK_FULL)
    return { status: 507, code, reason: `${code}: the database server's disk is full` };
  if (code === PG_READ_ONLY) return { status: 503, code, reason: `${code}: the database cannot be written` };
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
  if (failure.reason.endsWith('cannot be reached'))
    return {
      status: 503,
      message: `the database server cannot be reached (${failure.code}); nothing was read or saved, try again`,
      cause: failure.reason,
    };
  const message =
    failure.status === 507
      ? 'insufficient storage: the disk holding the database is full; nothing was saved'
      : `database temporarily unavailable (${failure.code}); nothing was saved, try again`;
  return { status: failure.status, message, cause: failure.reason };
}
