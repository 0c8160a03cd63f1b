import type { IncomingHttpHeaders } from 'node:http';

/** What a request presents as the API key. */
export interface PresentedKey {
  /** The key to check: `X-API-Key` (its first value when repeated), else the bearer token. */
  key: string | undefined;
  /** The `Authorization: Bearer` token alone: only it may be the metrics token instead. */
  bearer: string | undefined;
}

/**
 * `X-API-Key: <key>` or `Authorization: Bearer <key>`, read one way for the api-key strategy and
 * for the live stream's re-check, so both accept exactly the same headers.
 */
export function presentedKey(headers: IncomingHttpHeaders): PresentedKey {
  const header = headers['x-api-key'];
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  return { key: (Array.isArray(header) ? header[0] : header) ?? bearer, bearer };
}
