import type { DataSource, QueryRunner } from 'typeorm';

/** The two storage backends: the embedded SQLite file and a PostgreSQL server. */
export type Dialect = 'sqlite' | 'postgres';

/** Which backend a connection (or a migration's query runner) talks to. */
export function dialectOf(source: DataSource | QueryRunner): Dialect {
  const options = 'connection' in source ? source.connection.options : source.options;
  const type = options.type;
  return type === 'postgres' ? 'postgres' : 'sqlite';
}
