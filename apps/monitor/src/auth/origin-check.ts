const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request check for browser (cookie) writes: the Origin header, or failing that the
 * Referer, must name the host the request arrived at. A request with neither passes: scripts send
 * no Origin, and they carry no session cookie.
 */
export function isSameOriginWrite(
  method: string,
  host: string | undefined,
  origin: string | undefined,
  referer: string | undefined,
): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  const claimed = origin ?? referer;
  if (claimed === undefined || claimed === '') return true;
  if (!host) return false;
  try {
    return new URL(claimed).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false; // "null" and malformed origins never match
  }
}
