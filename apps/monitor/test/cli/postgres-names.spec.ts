import {
  databaseOf,
  highestVersionDir,
  isAddressInUse,
  MAX_IDENTIFIER_BYTES,
  postgresUrl,
  quoteIdentifier,
  sanitiseDatabaseName,
  testDatabaseName,
  withDatabase,
} from '../support/postgres-names';

describe('PostgreSQL test harness names and URLs', () => {
  it('builds a password-free URL and swaps only the database', () => {
    const url = postgresUrl({ host: '127.0.0.1', port: 54321, user: 'monitor_test', database: 'postgres' });
    expect(url).toBe('postgres://monitor_test@127.0.0.1:54321/postgres');
    expect(withDatabase(url, 'api_sensors_1')).toBe('postgres://monitor_test@127.0.0.1:54321/api_sensors_1');
    expect(postgresUrl({ host: '::1', port: 5, user: 'a b', database: 'x/y' })).toBe(
      'postgres://a%20b@[::1]:5/x%2Fy',
    );
    expect(databaseOf(withDatabase(url, 'x/y'))).toBe('x/y');
  });

  it('sanitises names to unquoted identifiers within the length limit, keeping long names distinct', () => {
    expect(sanitiseDatabaseName('Sensors.Spec-Ts')).toBe('sensors_spec_ts');
    expect(sanitiseDatabaseName('1st file')).toBe('db_1st_file');
    expect(sanitiseDatabaseName('__x__')).toBe('x');
    const long = 'a'.repeat(80);
    const longer = `${long}b`;
    expect(sanitiseDatabaseName(long)).toHaveLength(MAX_IDENTIFIER_BYTES);
    expect(sanitiseDatabaseName(long)).not.toBe(sanitiseDatabaseName(longer));
    for (const raw of ['Ä ö ü', '"; drop database x; --', '', long]) {
      expect(sanitiseDatabaseName(raw)).toMatch(/^[a-z][a-z0-9_]{0,62}$/);
    }
  });

  it('names a test database after the folder, the file and the counter', () => {
    expect(testDatabaseName('/repo/apps/monitor/test/api/backup.spec.ts', 2, 'a1b2c3')).toBe(
      'api_backup_2_a1b2c3',
    );
    expect(testDatabaseName('/repo/apps/monitor/test/cli/backup.spec.ts', 2, 'a1b2c3')).toBe(
      'cli_backup_2_a1b2c3',
    );
  });

  it('quotes identifiers by doubling quotes and refuses NUL', () => {
    expect(quoteIdentifier('plain')).toBe('"plain"');
    expect(quoteIdentifier('we"ird')).toBe('"we""ird"');
    expect(() => quoteIdentifier('a\0b')).toThrow('NUL');
  });

  it('picks the highest numeric PostgreSQL version directory', () => {
    expect(highestVersionDir(['9.6', '15', '13', 'common'])).toBe('15');
    expect(highestVersionDir(['16', '15', '9.6'])).toBe('16');
    expect(highestVersionDir(['common'])).toBeUndefined();
  });

  it('recognises a port taken by another process in the server log', () => {
    expect(isAddressInUse('LOG:  could not bind IPv4 address "127.0.0.1": Address already in use')).toBe(
      true,
    );
    expect(isAddressInUse('FATAL:  data directory "/x" has invalid permissions')).toBe(false);
  });
});
