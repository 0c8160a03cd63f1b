/**
 * Credentials written into an http target (`https://user:pass@host/`) moved into the
 * `basic_auth_user` and `basic_auth_password` options, where the password is a masked secret.
 * Used where sensors written before the API refused such targets arrive: the stored rows (a
 * migration), the configuration file and a restored backup.
 */
export interface LiftedCredentials {
  target: string;
  options: Record<string, unknown>;
}

/** Null when the target carries no credentials (or is no URL); otherwise the converted sensor. */
export function liftUrlCredentials(
  target: string,
  options: Readonly<Record<string, unknown>>,
): LiftedCredentials | null {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || (url.username === '' && url.password === ''))
    return null;
  const user = safeDecode(url.username);
  const password = safeDecode(url.password);
  url.username = '';
  url.password = '';
  const lifted: Record<string, unknown> = { ...options };
  const headers = options.headers;
  const hasAuthorization =
    typeof headers === 'object' &&
    headers !== null &&
    Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  // An explicit Authorization header was sent instead of the URL's credentials: it stays alone.
  if (!hasAuthorization && user !== '') {
    lifted.basic_auth_user = user;
    if (password !== '') lifted.basic_auth_password = password;
  }
  return { target: url.toString(), options: lifted };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
