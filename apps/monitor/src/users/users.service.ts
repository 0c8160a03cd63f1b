import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ConflictError, InvalidInputError, NotFoundError } from '@monitor/domain';
import type { Role, UpdateUserRequest, UserAccount } from '@monitor/contracts';
import { checkPasswordRules, hashPassword, verifyPassword, WrongPassword } from '../auth/passwords';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { UnitOfWork } from '../core/database/unit-of-work';
import { UsersRepository, type User } from './users.repository';
import { isoOrNull } from '../core/clock/iso';

const USERNAME = /^[\p{L}\p{N}._@-]{1,64}$/u;

export const BOOTSTRAP_ADMIN = 'admin';

/** Accounts and their rules: unique names, the last active administrator, no self-removal. */
@Injectable()
export class UsersService implements OnApplicationBootstrap {
  private firstAccountTurn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly unit: UnitOfWork,
    private readonly repository: UsersRepository,
    private readonly clock: Clock,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

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
  async createFirst(username: string, password: string): Promise<User | null> {
    const checked = checkedUsername(username);
    checkPasswordRules(password);
    // One at a time in this process, so the losers of a burst fail at the cheap check below
    // instead of each paying for a hash; the database still decides across processes.
    const turn = this.firstAccountTurn.then(() => this.insertFirst(checked, password));
    this.firstAccountTurn = turn.catch(() => undefined);
    return turn;
  }

  private async insertFirst(username: string, password: string): Promise<User | null> {
    if ((await this.count()) > 0) return null;
    const passwordHash = await hashPassword(password);
    const now = this.clock.now();
    const id = await this.unit.atomically((tx) =>
      this.repository.insertFirstAccount(tx, { username, passwordHash, role: 'admin', now }),
    );
    return id === null ? null : this.mustFind(id);
  }

  count(): Promise<number> {
    return this.repository.count();
  }

  findById(id: number): Promise<User | null> {
    return this.repository.findById(id);
  }

  /** Case-insensitive, like the unique index. */
  findByUsername(username: string): Promise<User | null> {
    return this.repository.findByUsername(username.trim());
  }

  /** A new account; the unique index on the name (any case) decides between racing creates (409). */
  async create(input: { username: string; password: string; role: Role }): Promise<User> {
    const username = checkedUsername(input.username);
    checkPasswordRules(input.password);
    const passwordHash = await hashPassword(input.password);
    const now = this.clock.now();
    const id = await this.unit.atomically((tx) =>
      this.repository.insertAccount(tx, { username, passwordHash, role: input.role, now }),
    );
    return this.mustFind(id);
  }

  async list(): Promise<UserAccount[]> {
    const users = await this.repository.list();
    const left = await this.repository.recoveryCodesLeft();
    return users.map((user) => toAccount(user, left.get(user.id) ?? 0));
  }

  async account(user: User): Promise<UserAccount> {
    return toAccount(user, await this.recoveryCodesLeftFor(user.id));
  }

  async recoveryCodesLeftFor(userId: number): Promise<number> {
    return (await this.repository.recoveryCodesLeft(userId)).get(userId) ?? 0;
  }

  /** Role and disabled flag; refuses to leave no active administrator or to disable oneself. */
  async update(actorId: number | null, id: number, change: UpdateUserRequest): Promise<UserAccount> {
    const now = this.clock.now();
    await this.unit.atomically(async (tx) => {
      if (change.disabled === true && id === actorId)
        throw new ConflictError('you cannot disable your own account');
      await this.repository.changeRole(tx, id, change, now);
    });
    return this.account(await this.mustFind(id));
  }

  async remove(actorId: number | null, id: number): Promise<void> {
    await this.unit.atomically(async (tx) => {
      if (id === actorId && (await this.repository.exists(tx, id)))
        throw new ConflictError('you cannot delete your own account');
      await this.repository.deleteAccount(tx, id);
    });
  }

  /** A new password; bumping the epoch ends every session of that account. */
  async setPassword(id: number, password: string, field = 'new_password'): Promise<User> {
    checkPasswordRules(password, field);
    const passwordHash = await hashPassword(password);
    return this.repository.setPassword(await this.mustFind(id), passwordHash, this.clock.now());
  }

  async changeOwnPassword(user: User, current: string, next: string): Promise<User> {
    if (!(await verifyPassword(current, user.passwordHash))) {
      throw new WrongPassword('current_password is not correct');
    }
    return this.setPassword(user.id, next);
  }

  async recordSignIn(user: User): Promise<void> {
    await this.repository.recordSignIn(user.id, this.clock.now());
  }

  async mustFind(id: number): Promise<User> {
    const user = await this.repository.findById(id);
    if (!user) throw new NotFoundError(`no account with id ${id}`);
    return user;
  }
}

function checkedUsername(username: string): string {
  const trimmed = username.trim();
  if (!USERNAME.test(trimmed))
    throw new InvalidInputError('username must be 1 to 64 letters, digits or . _ @ -');
  return trimmed;
}

export function toAccount(user: User, recoveryCodesLeft: number): UserAccount {
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
