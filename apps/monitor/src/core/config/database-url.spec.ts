import { databaseHost, maskDatabaseUrl, parsePostgresUrl } from './database-url';

describe('database URL', () => {
  it('accepts postgres:// and postgresql:// with a host, nothing else', () => {
    expect(parsePostgresUrl('postgres://u:p@db.example:5433/monitor')?.hostname).toBe('db.example');
    expect(parsePostgresUrl(' postgresql://127.0.0.1/monitor ')?.port).toBe('');
    expect(parsePostgresUrl('mysql://u:p@host/db')).toBeNull();
    expect(parsePostgresUrl('postgres:///monitor')).toBeNull();
    expect(parsePostgresUrl('monitor.db')).toBeNull();
    expect(parsePostgresUrl('')).toBeNull();
  });

  it('masks the password and secret parameters but keeps the rest', () => {
    expect(maskDatabaseUrl('postgres://monitor:s3cr%40t@db:5432/m?sslmode=require')).toBe(
      'postgres://monitor:***@db:5432/m?sslmode=require',
    );
    expect(maskDatabaseUrl('postgresql://db/m?password=hunter22&application_name=x')).toBe(
      'postgresql://db/m?password=***&application_name=x',
    );
    expect(maskDatabaseUrl('postgres://monitor@db/m')).toBe('postgres://monitor@db/m');
    expect(maskDatabaseUrl('not a url with secret')).toBe('***');
  });

  it('names host and port, with the default port when none is given', () => {
    expect(databaseHost('postgres://u:pw@10.0.0.5:6543/db')).toBe('10.0.0.5:6543');
    expect(databaseHost('postgres://u:pw@db.internal/db')).toBe('db.internal:5432');
    expect(databaseHost('postgres://u:pw@[::1]:5432/db')).toBe('[::1]:5432');
  });
});
