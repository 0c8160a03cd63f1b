import { createHash, randomInt } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 8;
const GROUPS = 4;
const GROUP_LENGTH = 4;
// No 0/O, 1/I/L: codes are read off paper and typed by hand.
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** Eight fresh codes of sixteen characters in four groups, e.g. `K7QM-3XWD-9HTP-RB2N`. */
export function generateRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () =>
    Array.from({ length: GROUPS }, () =>
      Array.from({ length: GROUP_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join(''),
    ).join('-'),
  );
}

/** The sixteen code characters as typed (any case, with or without dashes and spaces), or null. */
export function normalizeRecoveryCode(input: string): string | null {
  const compact = input.replace(/[\s-]/g, '').toUpperCase();
  return compact.length === GROUPS * GROUP_LENGTH && [...compact].every((c) => ALPHABET.includes(c))
    ? compact
    : null;
}

/** What is stored: SHA-256 of the normalised code. */
export const hashRecoveryCode = (normalized: string): string =>
  createHash('sha256').update(normalized).digest('hex');
