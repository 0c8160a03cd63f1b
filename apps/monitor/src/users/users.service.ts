import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ConflictError, InvalidInputError, NotFoundError } from '@monitor/domain';
import type { Role, UpdateUserRequest, UserAccount } from '@monitor/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { checkPasswordRules, hashPassword, verifyPassword } from '../auth/passwords';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { writeAtomically } from '../core/database/write-atomically';
import { changeRole, deleteAccount, insertAccount, insertFirstAccount } from './account-writes';
import { RecoveryCodeEntity } from './recovery-code.entity';
import { UserEntity } from './user.entity';
import { isoOrNull } from '../core/clock/iso';

const USERNAME = /^[\p{L}\p{N}._@-]{1,64}$/u;

export const BOOTSTRAP_ADMIN = 'admin';

/** Accounts and their rules: unique names, the last active administrator, no self-removal. */
@Injectable()
export class UsersService implements OnApplicationBootstrap {
  private firstAccountTurn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  private get users() {
    return this.dataSource.getRepository(UserEntity);
  }

  /** MONITOR_ADMIN_PASSWORD creates `admin` when no account exists; ignored afterwards. */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.admin_password || (await this.count()) > 0) return;
    // A setup (or another process) may win meanwhile: then the password is ignored, as documented.
    const created = await this.createFirst(BOOTSTRAP_ADMIN, this.config.admin_password);
    if (created)
      this.logger.info(
        { username: BOOTSTRAP_ADMIN },
        'created the first administrator from MONITOR_ADMIN_PASSWORD',
      );
  }

  /**
   * The first account, an administrator, only while no account exists: the database decides in
   * one conditional insert, so of any number of racing callers exactly one gets an account and
   * the others null. The slow hash is made before, outside the transaction.
   */
  async createFirst(username: string, password: string): Promise<UserEntity | null> {
    const checked = checkedUsername(username);
    checkPasswordRules(password);
    // One at a time in this process, so the losers of a burst fail at the cheap check below
    // instead of each paying for a hash; the database still decides across processes.
    const turn = this.firstAccountTurn.then(() => this.insertFirst(checked, password));
    this.firstAccountTurn = turn.catch(() => undefined);
    return turn;
  }

  private async insertFirst(username: string, password: string): Promise<UserEntity | null> {
    if ((await this.count()) > 0) return null;
    const passwordHash = await hashPassword(password);
    const now = this.clock.now();
    const id = await writeAtomically(this.dataSource, (db) =>
      insertFirstAccount(db, { username, passwordHash, role: 'admin', now }),
    );
    return id === null ? null : this.mustFind(id);
  }

  count(): Promise<number> {
    return this.users.count();
  }

  findById(id: number): Promise<UserEntity | null> {
    return this.users.findOneBy({ id });
  }

  /** Case-insensitive, like the unique index. */
  findByUsername(username: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ username: username.trim() });
  }

  /** A new account; the unique index on the name (any case) decides between racing creates (409). */
  async create(input: { username: string; password: string; role: Role }): Promise<UserEntity> {
    const username = checkedUsername(input.username);
    checkPasswordRules(input.password);
    const passwordHash = await hashPassword(input.password);
    const now = this.clock.now();
    const id = await writeAtomically(this.dataSource, (db) =>
      insertAccount(db, { username, passwordHash, role: input.role, now }),
    );
    return this.mustFind(id);
  }

  async list(): Promise<UserAccount[]> {
    const users = await this.users.find({ order: { username: 'ASC' } });
    const left = await this.recoveryCodesLeft();
    return users.map((user) => toAccount(user, left.get(user.id) ?? 0));
  }

  async account(user: UserEntity): Promise<UserAccount> {
    return toAccount(user, await this.recoveryCodesLeftFor(user.id));
  }

  async recoveryCodesLeftFor(userId: number): Promise<number> {
    return (await this.recoveryCodesLeft(userId)).get(userId) ?? 0;
  }

  /** Role and disabled flag; refuses to leave no active administrator or to disable oneself. */
  async update(actorId: number | null, id: number, change: UpdateUserRequest): Promise<UserAccount> {
    const now = this.clock.now();
    await writeAtomically(this.dataSource, (db) => {
      if (change.disabled === true && id === actorId)
        throw new ConflictError('you cannot disable your own account');
      changeRole(db, id, change, now);
    });
    return this.account(await this.mustFind(id));
  }

  async remove(actorId: number | null, id: number): Promise<void> {
    await writeAtomically(this.dataSource, (db) => {
      if (id === actorId && db.prepare('SELECT 1 FROM users WHERE id = ?').get(id))
        throw new ConflictError('you cannot delete your own account');
      deleteAccount(db, id);
    });
  }

  /** A new password; bumping the epoch ends every session of that account. */
  async setPassword(id: number, password: string, field = 'new_password'): Promise<UserEntity> {
    checkPasswordRules(password, field);
    const passwordHash = await hashPassword(password);
    const user = await this.mustFind(id);
    Object.assign(user, { passwordHash, tokenEpoch: user.tokenEpoch + 1, updatedAt: this.clock.now() });
    return this.users.save(user);
  }

  async changeOwnPassword(user: UserEntity, current: string, next: string): Promise<UserEntity> {
    if (!(await verifyPassword(current, user.passwordHash))) {
      throw new InvalidInputError('current_password is not correct');
    }
    return this.setPassword(user.id, next);
  }

  async recordSignIn(user: UserEntity): Promise<void> {
    await this.users.update({ id: user.id }, { lastLoginAt: this.clock.now() });
  }

  async mustFind(id: number, manager: EntityManager = this.dataSource.manager): Promise<UserEntity> {
    const user = await manager.getRepository(UserEntity).findOneBy({ id });
    if (!user) throw new NotFoundError(`no account with id ${id}`);
    return user;
  }

  private async recoveryCodesLeft(userId?: number): Promise<Map<number, number>> {
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
}

function checkedUsername(username: string): string {
  const trimmed = username.trim();
  if (!USERNAME.test(trimmed))
    throw new InvalidInputError('username must be 1 to 64 letters, digits or . _ @ -');
  return trimmed;
}

export function toAccount(user: UserEntity, recoveryCodesLeft: number): UserAccount {
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    disabled: user.disabled,
    totp_enabled: user.totpEnabled,
    recovery_codes_left: user.totpEnabled ? recoveryCodesLeft : 0,
    last_login_at: isoOrNull(user.lastLoginAt),
    created_at: new Date(user.createdAt).toISOString(),
  };
}
