import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '../core/clock/clock';
import { InstallationSecretsService } from '../settings/installation-secrets.service';
import { UsersRepository, type User } from '../users/users.repository';
import { SESSION_LIFETIME_MS } from './session-cookie';
import { signToken, verifyToken } from './signed-token';
import { SpentChallengesRepository } from './spent-challenges.repository';

export const TOTP_CHALLENGE_LIFETIME_MS = 2 * 60 * 1000;

/** Session cookies and second-factor challenges: both name the account and its token epoch. */
@Injectable()
export class SessionService {
  constructor(
    private readonly users: UsersRepository,
    private readonly secrets: InstallationSecretsService,
    private readonly clock: Clock,
    private readonly spent: SpentChallengesRepository,
  ) {}

  async issueSession(user: User): Promise<string> {
    const key = await this.secrets.sessionKey();
    return signToken(key, 'session', [user.id, user.tokenEpoch], this.clock.now() + SESSION_LIFETIME_MS);
  }

  /** A random third field, so two challenges of one account within a second differ. */
  async issueChallenge(user: User): Promise<string> {
    const key = await this.secrets.sessionKey();
    return signToken(
      key,
      'totp-challenge',
      [user.id, user.tokenEpoch, randomInt(2 ** 47)],
      this.clock.now() + TOTP_CHALLENGE_LIFETIME_MS,
    );
  }

  /** A fresh session for an account re-read now; null when it is gone or disabled. */
  async renewSession(userId: number): Promise<string | null> {
    const user = await this.users.findById(userId);
    return user && !user.disabled ? this.issueSession(user) : null;
  }

  /** The account a session names, re-read now: null when expired, forged, disabled or revoked. */
  async userOfSession(token: string | undefined): Promise<User | null> {
    return this.resolve('session', token, 2);
  }

  /** The account a valid challenge names; spends nothing. */
  async userOfChallenge(token: string | undefined): Promise<User | null> {
    return this.resolve('totp-challenge', token, 3);
  }

  /**
   * The account a valid challenge names, spending the challenge: whatever the code tried with it,
   * the same challenge is refused afterwards (null), on every instance sharing the database.
   */
  async spendChallenge(token: string | undefined): Promise<User | null> {
    const user = await this.userOfChallenge(token);
    if (!user || token === undefined) return null;
    const now = this.clock.now();
    return (await this.spent.spend(token, now + TOTP_CHALLENGE_LIFETIME_MS, now)) ? user : null;
  }

  private async resolve(purpose: 'session' | 'totp-challenge', token: string | undefined, count: number) {
    const fields = verifyToken(await this.secrets.sessionKey(), purpose, token, count, this.clock.now());
    if (!fields) return null;
    const [id, epoch] = fields;
    const user = await this.users.findById(id);
    return user && !user.disabled && user.tokenEpoch === epoch ? user : null;
  }
}
