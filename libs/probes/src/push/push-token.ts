import { randomBytes } from 'node:crypto';

/** URL-safe, at least 128 bits (22 base64url characters); a generated one has 192. */
const TOKEN = /^[A-Za-z0-9_-]{22,128}$/;

export const isPushToken = (value: unknown): value is string =>
  typeof value === 'string' && TOKEN.test(value);

/** A fresh push token: 24 random bytes, base64url (32 characters). */
export const newPushToken = (): string => randomBytes(24).toString('base64url');
