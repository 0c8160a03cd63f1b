import { createHash } from 'node:crypto';
import * as path from 'node:path';

/** PostgreSQL cuts identifiers longer than this many bytes; a database name must fit. */
export const MAX_IDENTIFIER_BYTES = 63;

export interface PostgresAddress {
  host: string;
  port: number;
  user: string;
  database: string;
}

/** A postgres:// URL without a password (the test clusters trust loopback connections). */
export function postgresUrl({ host, port, user, database }: PostgresAddress): string {
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return `postgres://${encodeURIComponent(user)}@${hostPart}:${port}/${encodeURIComponent(database)}`;
}

/** The same server and user as `url`, another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/** The database a postgres:// URL names. */
export function databaseOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

/**
 * A database name that needs no quoting anywhere (lower-case letters, digits, underscores, a letter
 * first) and fits PostgreSQL's identifier limit; a name cut short keeps a hash of the whole so two
 * long names stay distinct.
 */
export function sanitiseDatabaseName(raw: string): string {
  let name = raw
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  if (!/^[a-z]/.test(name)) name = `db_${name}`.replace(/_$/, '');
  if (name.length > MAX_IDENTIFIER_BYTES) {
    const hash = createHash('sha256').update(raw).digest('hex').slice(0, 8);
    name = `${name.slice(0, MAX_IDENTIFIER_BYTES - hash.length - 1)}_${hash}`;
  }
  return name;
}

/**
 * The database name for the `counter`-th database of a test file: its folder and base name (so
 * api/backup.spec.ts and cli/backup.spec.ts differ), the counter and a suffix that keeps a re-run
 * of the same file in the same cluster apart.
 */
export function testDatabaseName(testPath: string, counter: number, suffix: string): string {
  const file = path.basename(testPath).replace(/\.spec\.ts$|\.ts$/, '');
  const folder = path.basename(path.dirname(testPath));
  return sanitiseDatabaseName(`${folder}_${file}_${counter}_${suffix}`);
}

/** Double-quotes an identifier for SQL, doubling any quote inside it. */
export function quoteIdentifier(name: string): string {
  if (name.includes('\0')) throw new Error('an identifier cannot contain a NUL character');
  return `"${name.replace(/"/g, '""')}"`;
}

/** The directory of the highest PostgreSQL major version among Debian's /usr/lib/postgresql/<n>. */
export function highestVersionDir(versions: readonly string[]): string | undefined {
  const numeric = versions.filter((v) => /^\d+(\.\d+)?$/.test(v));
  numeric.sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  return numeric[0];
}

/** True when a server log says the port was taken by someone else (then another port is tried). */
export const isAddressInUse = (log: string): boolean =>
  /could not bind .*address already in use|address already in use|could not create any TCP\/IP sockets/i.test(
    log,
  );
