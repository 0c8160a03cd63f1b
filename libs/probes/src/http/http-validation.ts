import { quote } from '../probe-messages';

/** The http probe's checks of a draft's target and request options. */

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

/** The refusal of `https://user:pass@host`: the credentials would be shown to every viewer. */
export const URL_CREDENTIALS_PROBLEM =
  'target must not carry credentials (user:password@): put them in options.basic_auth_user and options.basic_auth_password';

export function validateUrl(target: string): string | null {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'target must be an http or https URL';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    return 'target must be an http or https URL';
  }
  if (url.username !== '' || url.password !== '') return URL_CREDENTIALS_PROBLEM;
  return null;
}

export function validateBasicAuth(options: Readonly<Record<string, unknown>>): string | null {
  const user = options.basic_auth_user;
  const password = options.basic_auth_password;
  if (user !== undefined && (typeof user !== 'string' || user.length > 255 || /[:\r\n\0]/.test(user)))
    return 'options.basic_auth_user must be a string of at most 255 characters without a colon';
  if (
    password !== undefined &&
    (typeof password !== 'string' || password.length > 1024 || /[\r\n\0]/.test(password))
  )
    return 'options.basic_auth_password must be a string of at most 1024 characters without line breaks';
  if (typeof password === 'string' && password !== '' && (typeof user !== 'string' || user === ''))
    return 'options.basic_auth_password needs options.basic_auth_user';
  const headers = options.headers;
  if (
    typeof user === 'string' &&
    user !== '' &&
    typeof headers === 'object' &&
    headers !== null &&
    Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')
  )
    return 'options.basic_auth_user and an Authorization header cannot be used together';
  return null;
}

export function validateMethod(method: unknown): string | null {
  if (method === undefined) return null;
  return typeof method === 'string' && (HTTP_METHODS as readonly string[]).includes(method.toUpperCase())
    ? null
    : `options.method must be one of ${HTTP_METHODS.join(', ')}`;
}

export function validateHeaders(headers: unknown): string | null {
  if (headers === undefined) return null;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    return 'options.headers must be an object of header names to string values';
  }
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) return `options.headers has an invalid header name ${quote(name)}`;
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      return `options.headers.${name} must be a string without line breaks`;
    }
  }
  return null;
}
