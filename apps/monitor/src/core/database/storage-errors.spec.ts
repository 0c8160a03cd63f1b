import { QueryFailedError } from 'typeorm';
import { classifyStorageError, storageErrorResponse } from './storage-errors';

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
