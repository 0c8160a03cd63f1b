import { Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError } from '@monitor/domain';
import type { Role } from '@monitor/contracts';
import { DataSource } from 'typeorm';
import {
  anyLikeFragment,
  boolOf,
  isUniqueViolationError,
  sqlClientFor,
  type SqlClient,
  type SqlExecutor,
} from '../core/database/sql-client';
import { parseJsonOr } from '../core/database/stored-values';
import type { UserRow } from './user-rows.sql';
import type { UserEntity } from './user.entity';

/** A stored account, as the other features (sign-in, sessions, preferences) see it. */
export type User = UserEntity;

/*
 * The account rules that depend on other rows ("no account yet", "another active administrator",
 * "no such name yet") are each checked and written inside one UnitOfWork.atomically transaction,
 * so two requests can never both pass the check.
 */

export interface NewAccount {
  username: string;
  passwordHash: string;
  role: Role;
  now: number;
}

const COLUMNS = `id, username, password_hash, role, disabled, token_epoch, totp_secret, totp_enabled,
  totp_last_step, ui, tour_version, last_login_at, created_at, updated_at`;

const toUser = (row: UserRow): User => ({
  id: Number(row.id),
  username: row.username,
  passwordHash: row.password_hash,
  role: row.role,
  disabled: boolOf(row.disabled),
  tokenEpoch: Number(row.token_epoch),
  totpSecret: row.totp_secret,
  totpEnabled: boolOf(row.totp_enabled),
  totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step),
  ui: parseJsonOr<Record<string, string>>(row.ui, {}),
  tourVersion: Number(row.tour_version),
  lastLoginAt: row.last_login_at === null ? null : Number(row.last_login_at),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const INSERT = `INSERT INTO users (username, password_hash, role, disabled, token_epoch, totp_enabled, ui,
    tour_version, created_at, updated_at)
  VALUES (?, ?, ?, ?, 0, ?, '{}', 0, ?, ?)`;

const insertParams = (a: NewAccount): unknown[] => [
  a.username,
  a.passwordHash,
  a.role,
  false,
  false,
  a.now,
  a.now,
];

/** Inserts the account and answers its id; a name taken in any case is a 409 naming it. */
async function insertAccount(tx: SqlExecutor, account: NewAccount): Promise<number> {
  try {
    const row = await tx.get<{ id: number }>(`${INSERT} RETURNING id`, insertParams(account));
    return Number(row!.id);
  } catch (error) {
    if (isUniqueViolationError(error))
      throw new ConflictError(`an account named "${account.username}" already exists`);
    throw error;
  }
}

/**
 * Inserts the account only while the table is empty (first-run setup); null when one exists.
 * Inside `atomically`, so no other writer comes between the check and the insert.
 */
async function insertFirstAccount(tx: SqlExecutor, account: NewAccount): Promise<number | null> {
  if (await tx.get('SELECT 1 AS one FROM users LIMIT 1')) return null;
  const row = await tx.get<{ id: number }>(`${INSERT} RETURNING id`, insertParams(account));
  return row ? Number(row.id) : null;
}

interface StoredRole {
  role: Role;
  disabled: boolean;
}

async function storedRole(tx: SqlExecutor, id: number): Promise<StoredRole> {
  const row = await tx.get<{ role: Role; disabled: unknown }>(
    'SELECT role, disabled FROM users WHERE id = ?',
    [id],
  );
  if (!row) throw new NotFoundError(`no account with id ${id}`);
  return { role: row.role, disabled: boolOf(row.disabled) };
}

/** Refuses a change that would leave no active administrator but the account `id`. */
async function requireAnotherActiveAdmin(tx: SqlExecutor, id: number, action: string): Promise<void> {
  const row = await tx.get<{ n: number }>(
    `SELECT count(*) AS n FROM users WHERE role = 'admin' AND disabled = ? AND id <> ?`,
    [false, id],
  );
  if (Number(row?.n ?? 0) === 0) throw new ConflictError(`the last active administrator cannot be ${action}`);
}

/** Sets role and disabled; the last active administrator keeps both. */
async function changeRole(
  tx: SqlExecutor,
  id: number,
  change: { role?: Role; disabled?: boolean },
  now: number,
): Promise<void> {
  const stored = await storedRole(tx, id);
  const next = { role: change.role ?? stored.role, disabled: change.disabled ?? stored.disabled };
  const losesAdmin = stored.role === 'admin' && !stored.disabled && (next.role !== 'admin' || next.disabled);
  if (losesAdmin) await requireAnotherActiveAdmin(tx, id, next.disabled ? 'disabled' : 'demoted');
  await tx.run('UPDATE users SET role = ?, disabled = ?, updated_at = ? WHERE id = ?', [
    next.role,
    next.disabled,
    now,
    id,
  ]);
}

/** Deletes the account (its recovery codes cascade); never the last active administrator. */
async function deleteAccount(tx: SqlExecutor, id: number): Promise<void> {
  const stored = await storedRole(tx, id);
  if (stored.role === 'admin' && !stored.disabled) await requireAnotherActiveAdmin(tx, id, 'deleted');
  await tx.run('DELETE FROM users WHERE id = ?', [id]);
}

/** The TOTP columns a confirmation re-checks inside its transaction. */
interface StoredTotp {
  totp_enabled: boolean;
  totp_secret: string | null;
  totp_last_step: number | null;
}

/** The only code that reads or writes `users` and `recovery_codes`. */
@Injectable()
export class UsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  readonly insertAccount = insertAccount;
  readonly insertFirstAccount = insertFirstAccount;
  readonly changeRole = changeRole;
  readonly deleteAccount = deleteAccount;

  async exists(tx: SqlExecutor, id: number): Promise<boolean> {
    return (await tx.get('SELECT 1 AS one FROM users WHERE id = ?', [id])) !== undefined;
  }

  /** Accounts whose username or role contains the LIKE `pattern`; never any credential. */
  async search(
    pattern: string,
    limit: number,
  ): Promise<{ username: string; role: string; disabled: boolean; last_login_at: number | null }[]> {
    const rows = await this.sql.all<{
      username: string;
      role: string;
      disabled: unknown;
      last_login_at: number | null;
    }>(
      `SELECT username, role, disabled, last_login_at FROM users
       WHERE ${anyLikeFragment(this.sql.dialect, ['username', 'role'])} ORDER BY username, id LIMIT ?`,
      [pattern, pattern, limit],
    );
    return rows.map((row) => ({ ...row, disabled: boolOf(row.disabled) }));
  }

  async count(): Promise<number> {
    return Number((await this.sql.get<{ n: number }>('SELECT count(*) AS n FROM users'))?.n ?? 0);
  }

  async findById(id: number): Promise<User | null> {
    const row = await this.sql.get<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = ?`, [id]);
    return row ? toUser(row) : null;
  }

  /** Case-insensitive, like the unique index. */
  async findByUsername(username: string): Promise<User | null> {
    const row = await this.sql.get<UserRow>(`SELECT ${COLUMNS} FROM users WHERE username = ?`, [username]);
    return row ? toUser(row) : null;
  }

  /** Every account by name. */
  async list(): Promise<User[]> {
    return (await this.sql.all<UserRow>(`SELECT ${COLUMNS} FROM users ORDER BY username, id`)).map(toUser);
  }

  /** A new password hash; the epoch moves on, which ends every session of the account. */
  async setPassword(user: User, passwordHash: string, now: number): Promise<User> {
    await this.sql.run(
      'UPDATE users SET password_hash = ?, token_epoch = token_epoch + 1, updated_at = ? WHERE id = ?',
      [passwordHash, now, user.id],
    );
    return (await this.findById(user.id)) ?? user;
  }

  async recordSignIn(id: number, now: number): Promise<void> {
    await this.sql.run('UPDATE users SET last_login_at = ? WHERE id = ?', [now, id]);
  }

  async setUi(id: number, ui: Record<string, string>, now: number): Promise<void> {
    await this.sql.run('UPDATE users SET ui = ?, updated_at = ? WHERE id = ?', [JSON.stringify(ui), now, id]);
  }

  /** Records the highest tour version finished; a lower version never undoes a higher one. */
  async raiseTourVersion(id: number, version: number): Promise<void> {
    await this.sql.run('UPDATE users SET tour_version = ? WHERE id = ? AND tour_version < ?', [
      version,
      id,
      version,
    ]);
  }

  /** Unused recovery codes per account (of one account when `userId` is given). */
  async recoveryCodesLeft(userId?: number): Promise<Map<number, number>> {
    const rows = await this.sql.all<{ user_id: number; n: number }>(
      `SELECT user_id, count(*) AS n FROM recovery_codes WHERE used_at IS NULL${
        userId === undefined ? '' : ' AND user_id = ?'
      } GROUP BY user_id`,
      userId === undefined ? [] : [userId],
    );
    return new Map(rows.map((row) => [Number(row.user_id), Number(row.n)]));
  }

  /** Stores a new unconfirmed secret, only while the second factor is off; false when it is on. */
  async startTotp(id: number, secret: string, now: number): Promise<boolean> {
    const stored = await this.sql.run(
      'UPDATE users SET totp_secret = ?, totp_last_step = NULL, updated_at = ? WHERE id = ? AND totp_enabled = ?',
      [secret, now, id, false],
    );
    return stored.changes === 1;
  }

  async storedTotp(tx: SqlExecutor, id: number): Promise<StoredTotp | undefined> {
    const row = await tx.get<{
      totp_enabled: unknown;
      totp_secret: string | null;
      totp_last_step: number | null;
    }>('SELECT totp_enabled, totp_secret, totp_last_step FROM users WHERE id = ?', [id]);
    return row && { ...row, totp_enabled: boolOf(row.totp_enabled) };
  }

  /**
   * Turns the factor on for the secret the code belongs to, only while that secret is still the one
   * being enrolled: a restart that replaced it after the caller read the row makes this a no-op.
   */
  async enableTotp(tx: SqlExecutor, id: number, secret: string, step: number, now: number): Promise<boolean> {
    const enabled = await tx.run(
      `UPDATE users SET totp_enabled = ?, totp_last_step = ?, updated_at = ?
        WHERE id = ? AND totp_enabled = ? AND totp_secret = ? AND (totp_last_step IS NULL OR totp_last_step < ?)`,
      [true, step, now, id, false, secret, step],
    );
    return enabled.changes === 1;
  }

  /** Replaces the account's recovery codes with the given hashes. */
  async storeRecoveryCodes(tx: SqlExecutor, userId: number, hashes: string[]): Promise<void> {
    await tx.run('DELETE FROM recovery_codes WHERE user_id = ?', [userId]);
    if (hashes.length === 0) return;
    await tx.run(
      `INSERT INTO recovery_codes (user_id, code_hash, used_at) VALUES ${hashes.map(() => '(?, ?, NULL)').join(', ')}`,
      hashes.flatMap((hash) => [userId, hash]),
    );
  }

  /** Turns the second factor off inside the caller's transaction: secret, step and recovery codes. */
  async disableTotp(tx: SqlExecutor, id: number, now: number): Promise<void> {
    await tx.run('DELETE FROM recovery_codes WHERE user_id = ?', [id]);
    await tx.run(
      'UPDATE users SET totp_enabled = ?, totp_secret = NULL, totp_last_step = NULL, updated_at = ? WHERE id = ?',
      [false, now, id],
    );
  }

  /** Spends an unused recovery code; false when there is none with that hash. */
  async spendRecoveryCode(userId: number, codeHash: string, now: number): Promise<boolean> {
    const spent = await this.sql.run(
      'UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL',
      [now, userId, codeHash],
    );
    return spent.changes === 1;
  }

  /** Records a used time step unless a later one is recorded (of two racing, one wins). */
  async recordTotpStep(id: number, step: number): Promise<boolean> {
    const recorded = await this.sql.run(
      'UPDATE users SET totp_last_step = ? WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)',
      [step, id, step],
    );
    return recorded.changes === 1;
  }
}
