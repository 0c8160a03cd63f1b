import { QueryFailedError } from 'typeorm';
import { classifyStorageError, markDatabaseError, storageErrorResponse } from './storage-errors';

const sqlite = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('classifyStorageError', () => {
  it.each([
    ['SQLITE_FULL', 507],
    ['ENOSPC', 507],
    ['EDQUOT', 507],
    ['SQLITE_BUSY', 503],
    ['SQLITE_BUSY_SNAPSHOT', 503],
    ['SQLITE_LOCKED', 503],
    ['SQLITE_IOERR', 503],
    ['SQLITE_IOERR_WRITE', 503],
    ['SQLITE_IOERR_FSYNC', 503],
    ['SQLITE_READONLY', 503],
    ['EIO', 503],
    ['EROFS', 503],
  ])('%s → %d', (code, status) => {
    expect(classifyStorageError(sqlite(code))).toMatchObject({ status, code });
  });

  it.each(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_ERROR', 'SQLITE_CORRUPT', 'ECONNREFUSED', 'FST_ERR_BAD_URL'])(
    '%s is not about storage',
    (code) => expect(classifyStorageError(sqlite(code))).toBeNull(),
  );

  it('reads the code through TypeORM and ignores errors without one', () => {
    const wrapped = new QueryFailedError(
      'INSERT INTO sensors …',
      ['secret'],
      sqlite('SQLITE_FULL', 'database or disk is full'),
    );
    expect(classifyStorageError(wrapped)).toMatchObject({ status: 507, code: 'SQLITE_FULL' });
    expect(classifyStorageError({ driverError: { code: 'SQLITE_IOERR_WRITE' } })).toMatchObject({
      status: 503,
    });
    expect(classifyStorageError(new Error('plain'))).toBeNull();
    expect(classifyStorageError('text')).toBeNull();
    expect(classifyStorageError(null)).toBeNull();
  });
});

describe('storageErrorResponse', () => {
  it('tells the client nothing was saved, without the SQL or its parameters', () => {
    const wrapped = new QueryFailedError(
      'INSERT INTO sensors (name) VALUES (?)',
      ['secret-name'],
      sqlite('SQLITE_FULL'),
    );
    const full = storageErrorResponse(wrapped);
    expect(full).toEqual({
      status: 507,
      message: 'insufficient storage: the disk holding the database is full; nothing was saved',
      cause: 'SQLITE_FULL: the disk is full',
    });
    expect(JSON.stringify(full)).not.toContain('secret-name');
    expect(storageErrorResponse(sqlite('SQLITE_BUSY'))).toMatchObject({
      status: 503,
      message: 'database temporarily unavailable (SQLITE_BUSY); nothing was saved, try again',
    });
    expect(storageErrorResponse(sqlite('SQLITE_CONSTRAINT'))).toBeNull();
  });
});

describe('classifyStorageError on PostgreSQL', () => {
  const pg = (code: string | undefined, message = 'x') => Object.assign(new Error(message), { code });

  it.each(['08006', '08001', '57P01', '57P03', '53300'])(
    'SQLSTATE %s is an unreachable server: 503',
    (code) => {
      expect(classifyStorageError(pg(code))).toMatchObject({ status: 503, code });
      expect(storageErrorResponse(pg(code))?.message).toBe(
        `the database server cannot be reached (${code}); nothing was read or saved, try again`,
      );
    },
  );

  it('reads a full disk (53100) as 507 and a read-only server (25006) as 503', () => {
    expect(classifyStorageError(pg('53100'))).toMatchObject({ status: 507 });
    expect(classifyStorageError(pg('25006'))).toMatchObject({ status: 503 });
  });

  it("takes the driver's connection messages, which carry no code", () => {
    expect(classifyStorageError(pg(undefined, 'Connection terminated unexpectedly'))).toMatchObject({
      status: 503,
      code: 'PG_CONNECTION',
    });
    expect(classifyStorageError(pg(undefined, 'timeout exceeded when trying to connect'))).toMatchObject({
      status: 503,
    });
  });

  it('counts a network code as the database only when the pool marked it', () => {
    expect(classifyStorageError(pg('ECONNREFUSED'))).toBeNull();
    expect(classifyStorageError(markDatabaseError(pg('ECONNREFUSED')))).toMatchObject({ status: 503 });
    const wrapped = new QueryFailedError('SELECT 1', [], markDatabaseError(pg('ECONNRESET')));
    expect(classifyStorageError(wrapped)).toMatchObject({ status: 503, code: 'ECONNRESET' });
  });

  it.each(['23505', '42P01', '22P02'])('SQLSTATE %s is not about storage', (code) => {
    expect(classifyStorageError(pg(code))).toBeNull();
  });
});
