/** `postgres://` and `postgresql://` select PostgreSQL; anything else is not a database URL we accept. */
const POSTGRES_SCHEMES = ['postgres:', 'postgresql:'];

/** Query parameters whose values are secrets as much as the password in the authority part. */
const SECRET_PARAMS = ['password', 'sslpassword', 'sslkey'];

const MASK = '***';

/** Parses a PostgreSQL URL; null when it is not one (the caller says why without repeating it). */
export function parsePostgresUrl(text: string): URL | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (!POSTGRES_SCHEMES.includes(url.protocol) || url.hostname === '') return null;
  return url;
}

/** The URL with its password (and secret parameters) replaced by `***`, for the doctor and settings. */
export function maskDatabaseUrl(text: string): string {
  const url = parsePostgresUrl(text);
  if (!url) return MASK;
  if (url.password) url.password = MASK;
  for (const key of SECRET_PARAMS) if (url.searchParams.has(key)) url.searchParams.set(key, MASK);
  return url.toString().replace(/%2A%2A%2A/g, MASK);
}

/** `host:port` of a PostgreSQL URL, the part an error message may name (never the password). */
export function databaseHost(text: string): string {
  const url = parsePostgresUrl(text);
  if (!url) return 'the configured database';
  return `${url.hostname}:${url.port || '5432'}`;
}
