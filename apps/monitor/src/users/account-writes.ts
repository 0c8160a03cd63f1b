import { ConflictError, NotFoundError } from '@monitor/domain';
import type { Role } from '@monitor/contracts';
import type Database from 'better-sqlite3';
import { isUniqueViolation } from '../core/database/write-atomically';

/**
 * The account rules that depend on other rows ("no account yet", "another active administrator",
 * "no such name yet"), each checked and written by synchronous statements inside one
 * `writeAtomically` transaction, so two requests can never both pass the check.
 */

export interface NewAccount {
  username: string;
  passwordHash: string;
  role: Role;
  now: number;
}

const INSERT = `INSERT INTO users (username, password_hash, role, disabled, token_epoch, totp_enabled, ui,
    tour_version, created_at, updated_at)
  SELECT @username, @passwordHash, @role, 0, 0, 0, '{}', 0, @now, @now`;

/** Inserts the account and answers its id; a name taken in any case is a 409 naming it. */
export function insertAccount(db: Database.Database, account: NewAccount): number {
  try {
    return Number(db.prepare(INSERT).run(account).lastInsertRowid);
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ConflictError(`an account named "${account.username}" already exists`);
    throw error;
  }
}

/** Inserts the account only while the table is empty (first-run setup); null when one exists. */
export function insertFirstAccount(db: Database.Database, account: NewAccount): number | null {
  const run = db.prepare(`${INSERT} WHERE NOT EXISTS (SELECT 1 FROM users)`).run(account);
  return run.changes === 1 ? Number(run.lastInsertRowid) : null;
}

interface StoredRole {
  role: Role;
  disabled: number;
}

function storedRole(db: Database.Database, id: number): StoredRole {
  const row = db.prepare('SELECT role, disabled FROM users WHERE id = ?').get(id) as StoredRole | undefined;
  if (!row) throw new NotFoundError(`no account with id ${id}`);
  return row;
}

/** Refuses a change that would leave no active administrator but the account `id`. */
function requireAnotherActiveAdmin(db: Database.Database, id: number, action: string): void {
  const others = db
    .prepare(`SELECT count(*) FROM users WHERE role = 'admin' AND disabled = 0 AND id != ?`)
    .pluck()
    .get(id) as number;
  if (others === 0) throw new ConflictError(`the last active administrator cannot be ${action}`);
}

/** Sets role and disabled; the last active administrator keeps both. */
export function changeRole(
  db: Database.Database,
  id: number,
  change: { role?: Role; disabled?: boolean },
  now: number,
): void {
  const stored = storedRole(db, id);
  const next = { role: change.role ?? stored.role, disabled: change.disabled ?? stored.disabled === 1 };
  const losesAdmin =
    stored.role === 'admin' && stored.disabled === 0 && (next.role !== 'admin' || next.disabled);
  if (losesAdmin) requireAnotherActiveAdmin(db, id, next.disabled ? 'disabled' : 'demoted');
  db.prepare('UPDATE users SET role = ?, disabled = ?, updated_at = ? WHERE id = ?').run(
    next.role,
    next.disabled ? 1 : 0,
    now,
    id,
  );
}

/** Deletes the account (its recovery codes cascade); never the last active administrator. */
export function deleteAccount(db: Database.Database, id: number): void {
  const stored = storedRole(db, id);
  if (stored.role === 'admin' && stored.disabled === 0) requireAnotherActiveAdmin(db, id, 'deleted');
  db.prepare('DELETE FROM users WHERE id = ?').run(id);
}
