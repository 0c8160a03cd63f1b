import * as bcrypt from 'bcrypt';
import { InvalidInputError } from '@monitor/domain';

export const BCRYPT_COST = 12;
export const PASSWORD_MIN_CHARACTERS = 8;
export const PASSWORD_MAX_BYTES = 72;

/**
 * A cost-12 hash of a random string nobody knows. Unknown usernames are compared against it so that
 * a failed sign-in costs the same time whether or not the account exists.
 */
const DUMMY_HASH = '$2b$12$wRvtH.HodC0xe5Jq0xrBHOSw/mcPc1wncXVQSu.0gSJ1TxpRSVoS6';

/** The rules of decisions.md: at least 8 characters, at most 72 bytes (bcrypt's limit). */
export function checkPasswordRules(password: string, field = 'password'): void {
  if ([...password].length < PASSWORD_MIN_CHARACTERS) {
    throw new InvalidInputError(`${field} must be at least ${PASSWORD_MIN_CHARACTERS} characters`);
  }
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
    throw new InvalidInputError(`${field} must be at most ${PASSWORD_MAX_BYTES} bytes`);
  }
}

/** bcrypt's asynchronous API runs in libuv's thread pool, off the event loop. */
export const hashPassword = (password: string): Promise<string> => bcrypt.hash(password, BCRYPT_COST);

export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  const matches = await bcrypt.compare(password, hash ?? DUMMY_HASH);
  return hash !== null && matches;
}
