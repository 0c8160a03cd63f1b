import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Compact HMAC-SHA256 tokens: `<field>.<field>…<expiry>.<signature>`. The purpose is part of the
 * signed text, so a token made for one use (a TOTP challenge) is never accepted for another (a
 * session cookie).
 */
export type TokenPurpose = 'session' | 'totp-challenge';

const FIELD = /^[0-9]+$/;

const signature = (secret: Buffer, purpose: TokenPurpose, body: string): string =>
  createHmac('sha256', secret).update(`${purpose}|${body}`).digest('base64url');

/** `fields` are non-negative integers; `expiresAt` is epoch milliseconds. */
export function signToken(
  secret: Buffer,
  purpose: TokenPurpose,
  fields: number[],
  expiresAt: number,
): string {
  const body = [...fields, Math.floor(expiresAt / 1000)].map((n) => String(Math.trunc(n))).join('.');
  return `${body}.${signature(secret, purpose, body)}`;
}

/** The fields of a valid, unexpired token of that purpose with `count` fields, or null. */
export function verifyToken(
  secret: Buffer,
  purpose: TokenPurpose,
  token: string | undefined,
  count: number,
  now: number,
): number[] | null {
  if (!token || token.length > 200) return null;
  const parts = token.split('.');
  if (parts.length !== count + 2) return null;
  const given = Buffer.from(parts.pop() as string);
  const body = parts.join('.');
  const expected = Buffer.from(signature(secret, purpose, body));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (!parts.every((part) => FIELD.test(part))) return null;
  const numbers = parts.map(Number);
  const expiresAtSeconds = numbers.pop() as number;
  return expiresAtSeconds * 1000 > now ? numbers : null;
}
