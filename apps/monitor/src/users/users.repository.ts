import { Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError } from '@monitor/domain';
import type { Role } from '@monitor/contracts';
import { DataSource, IsNull } from 'typeorm';
import { anyLike } from '../core/database/like-pattern';
import { connectionOf, type SyncTx } from '../core/database/unit-of-work';
import { isUniqueViolation } from '../core/database/write-atomically';
import { RecoveryCodeEntity } from './recovery-code.entity';
import { UserEntity } from './user.entity';

/** A stored account, as the other features (sign-in, sessions, preferences) see it. */
export type User = UserEntity;

/*
 * The account rules that depend on other rows ("no account yet", "another active administrator",
 * "no such name yet") are each checked and written by synchronous statements inside one
 * UnitOfWork.atomically transaction, so two requests can never both pass the check.
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
function insertAccount(tx: SyncTx, account: NewAccount): number {
  const db = connectionOf(tx);
  try {
    return Number(db.prepare(INSERT).run(account).lastInsertRowid);
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ConflictError(`an account named "${account.username}" already exists`);
    throw error;
  }
}

/** Inserts the account only while the table is empty (first-run setup); null when one exists. */
function insertFirstAccount(tx: SyncTx, account: NewAccount): number | null {
  const db = connectionOf(tx);
  const run = db.prepare(`${INSERT} WHERE NOT EXISTS (SELECT 1 FROM users)`).run(account);
  return run.changes === 1 ? Number(run.lastInsertRowid) : null;
}

interface StoredRole {
  role: Role;
  disabled: number;
}

function storedRole(tx: SyncTx, id: number): StoredRole {
  const db = connectionOf(tx);
  const row = db.prepare('SELECT role, disabled FROM users WHERE id = ?').get(id) as StoredRole | undefined;
  if (!row) throw new NotFoundError(`no account with id ${id}`);
  return row;
}

/** Refuses a change that would leave no active administrator but the account `id`. */
function requireAnotherActiveAdmin(tx: SyncTx, id: number, action: string): void {
  const db = connectionOf(tx);
  const others = db
    .prepare(`SELECT count(*) FROM users WHERE role = 'admin' AND disabled = 0 AND id != ?`)
    .pluck()
    .get(id) as number;
  if (others === 0) throw new ConflictError(`the last active administrator cannot be ${action}`);
}

/** Sets role and disabled; the last active administrator keeps both. */
function changeRole(tx: SyncTx, id: number, change: { role?: Role; disabled?: boolean }, now: number): void {
  const db = connectionOf(tx);
  const stored = storedRole(tx, id);
  const next = { role: change.role ?? stored.role, disabled: change.disabled ?? stored.disabled === 1 };
  const losesAdmin =
    stored.role === 'admin' && stored.disabled === 0 && (next.role !== 'admin' || next.disabled);
  if (losesAdmin) requireAnotherActiveAdmin(tx, id, next.disabled ? 'disabled' : 'demoted');
  db.prepare('UPDATE users SET role = ?, disabled = ?, updated_at = ? WHERE id = ?').run(
    next.role,
    next.disabled ? 1 : 0,
    now,
    id,
  );
}

/** Deletes the account (its recovery codes cascade); never the last active administrator. */
function deleteAccount(tx: SyncTx, id: number): void {
  const db = connectionOf(tx);
  const stored = storedRole(tx, id);
  if (stored.role === 'admin' && stored.disabled === 0) requireAnotherActiveAdmin(tx, id, 'deleted');
  db.prepare('DELETE FROM users WHERE id = ?').run(id);
}

/** The TOTP columns a confirmation re-checks inside its transaction. */
interface StoredTotp {
  totp_enabled: number;
  totp_secret: string | null;
  totp_last_step: number | null;
}

/** The only code that reads or writes `users` and `recovery_codes`. */
@Injectable()
export class UsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get users() {
    return this.dataSource.getRepository(UserEntity);
  }

  readonly insertAccount = insertAccount;
  readonly insertFirstAccount = insertFirstAccount;
  readonly changeRole = changeRole;
  readonly deleteAccount = deleteAccount;

  existsNow(tx: SyncTx, id: number): boolean {
    return connectionOf(tx).prepare('SELECT 1 FROM users WHERE id = ?').get(id) !== undefined;
  }

  /** Accounts whose username or role contains the LIKE `pattern`; never any credential. */
  async search(
    pattern: string,
    limit: number,
  ): Promise<{ username: string; role: string; disabled: number; last_login_at: number | null }[]> {
    return (await this.dataSource.query(
      `SELECT username, role, disabled, last_login_at FROM users
       WHERE ${anyLike(['username', 'role'])} ORDER BY username, id LIMIT ?`,
      [pattern, pattern, limit],
    )) as { username: string; role: string; disabled: number; last_login_at: number | null }[];
  }

  count(): Promise<number> {
    return this.users.count();
  }

  findById(id: number): Promise<User | null> {
    return this.users.findOneBy({ id });
  }

  /** Case-insensitive, like the unique index. */
  findByUsername(username: string): Promise<User | null> {
    return this.users.findOneBy({ username });
  }

  /** Every account by name. */
  list(): Promise<User[]> {
    return this.users.find({ order: { username: 'ASC' } });
  }

  /** A new password hash; the epoch moves on, which ends every session of the account. */
  async setPassword(user: User, passwordHash: string, now: number): Promise<User> {
    Object.assign(user, { passwordHash, tokenEpoch: user.tokenEpoch + 1, updatedAt: now });
    return this.users.save(user);
  }

  async recordSignIn(id: number, now: number): Promise<void> {
    await this.users.update({ id }, { lastLoginAt: now });
  }

  async setUi(id: number, ui: Record<string, string>, now: number): Promise<void> {
    await this.users.update({ id }, { ui, updatedAt: now });
  }

  /** Records the highest tour version finished; a lower version never undoes a higher one. */
  async raiseTourVersion(id: number, version: number): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .update(UserEntity)
      .set({ tourVersion: version })
      .where('id = :id AND tour_version < :version', { id, version })
      .execute();
  }

  /** Unused recovery codes per account (of one account when `userId` is given). */
  async recoveryCodesLeft(userId?: number): Promise<Map<number, number>> {
    const query = this.dataSource
      .getRepository(RecoveryCodeEntity)
      .createQueryBuilder('c')
      .select('c.user_id', 'user_id')
      .addSelect('count(*)', 'left')
      .where('c.used_at IS NULL')
      .groupBy('c.user_id');
    if (userId !== undefined) query.andWhere('c.user_id = :userId', { userId });
    const rows = await query.getRawMany<{ user_id: number; left: number }>();
    return new Map(rows.map((row) => [Number(row.user_id), Number(row.left)]));
  }

  /** Stores a new unconfirmed secret, only while the second factor is off; false when it is on. */
  async startTotp(id: number, secret: string, now: number): Promise<boolean> {
    const stored = await this.users.update(
      { id, totpEnabled: false },
      { totpSecret: secret, totpLastStep: null, updatedAt: now },
    );
    return stored.affected === 1;
  }

  storedTotpNow(tx: SyncTx, id: number): StoredTotp {
    return connectionOf(tx)
      .prepare('SELECT totp_enabled, totp_secret, totp_last_step FROM users WHERE id = ?')
      .get(id) as StoredTotp;
  }

  enableTotpNow(tx: SyncTx, id: number, step: number, now: number): void {
    connectionOf(tx)
      .prepare('UPDATE users SET totp_enabled = 1, totp_last_step = ?, updated_at = ? WHERE id = ?')
      .run(step, now, id);
  }

  /** Replaces the account's recovery codes with the given hashes. */
  storeRecoveryCodesNow(tx: SyncTx, userId: number, hashes: string[]): void {
    const db = connectionOf(tx);
    db.prepare('DELETE FROM recovery_codes WHERE user_id = ?').run(userId);
    const insert = db.prepare('INSERT INTO recovery_codes (user_id, code_hash, used_at) VALUES (?, ?, NULL)');
    for (const hash of hashes) insert.run(userId, hash);
  }

  /** Turns the second factor off: secret, step and recovery codes go in one transaction. */
  async disableTotp(id: number, now: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.delete(RecoveryCodeEntity, { userId: id });
      await manager.update(
        UserEntity,
        { id },
        { totpEnabled: false, totpSecret: null, totpLastStep: null, updatedAt: now },
      );
    });
  }

  /** Spends an unused recovery code; false when there is none with that hash. */
  async spendRecoveryCode(userId: number, codeHash: string, now: number): Promise<boolean> {
    const spent = await this.dataSource
      .getRepository(RecoveryCodeEntity)
      .update({ userId, codeHash, usedAt: IsNull() }, { usedAt: now });
    return spent.affected === 1;
  }

  /** Records a used time step unless a later one is recorded (of two racing, one wins). */
  async recordTotpStep(id: number, step: number): Promise<boolean> {
    const recorded = await this.users
      .createQueryBuilder()
      .update()
      .set({ totpLastStep: step })
      .where('id = :id AND (totp_last_step IS NULL OR totp_last_step < :step)', { id, step })
      .execute();
    return recorded.affected === 1;
  }
}
