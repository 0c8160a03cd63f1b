import { availableParallelism } from 'node:os';
import * as bcrypt from 'bcrypt';
import { ConcurrencyLimit, InvalidInputError } from '@monitor/domain';

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

/**
 * Every bcrypt hash and comparison of the process takes a place here. bcrypt's asynchronous API
 * runs in libuv's thread pool (4 threads), off the event loop; the probes resolve names and the
 * process reads files in the same pool, so a crowd of password checks must not take all of it, nor
 * every core: one at a time on two cores or fewer, else two. The rest wait in arrival order.
 */
export const BCRYPT_WORK = new ConcurrencyLimit(Math.min(2, Math.max(1, availableParallelism() - 1)));

export const hashPassword = (password: string): Promise<string> =>
  BCRYPT_WORK.run(() => bcrypt.hash(password, BCRYPT_COST));

export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  const matches = await BCRYPT_WORK.run(() => bcrypt.compare(password, hash ?? DUMMY_HASH));
  return hash !== null && matches;
}

/** A wrong password given to confirm a change of one's own account (400; counted by the throttle). */
export class WrongPassword extends InvalidInputError {}
