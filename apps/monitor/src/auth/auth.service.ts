import { Injectable } from '@nestjs/common';
import { ConflictError, ForbiddenError } from '@monitor/domain';
import type { LoginResponse, SetupRequest } from '@monitor/contracts';
import { SettingsRepository } from '../settings/settings.repository';
import { TotpService } from '../users/totp.service';
import type { User } from '../users/users.repository';
import { UsersService } from '../users/users.service';
import { verifyPassword } from './passwords';
import { SessionService } from './session.service';

export const SETUP_MODE_SETTING = 'setup_mode';

/** The answer to a sign-in step: a session token to set, or a second-factor challenge. */
export type SignInOutcome =
  { kind: 'session'; token: string } | { kind: 'challenge'; response: LoginResponse };

/** Thrown for every failed sign-in, with one message whatever the reason (kept for the log). */
export class SignInFailed extends Error {
  constructor(
    readonly username: string,
    readonly reason: 'unknown user' | 'wrong password' | 'account disabled',
  ) {
    super('invalid username or password');
  }
}

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersService,
    private readonly totp: TotpService,
    private readonly sessions: SessionService,
    private readonly settings: SettingsRepository,
  ) {}

  /** First administrator, only while no account exists at all. Returns its session token. */
  /** `hostRefusal`: why the request's host may not run setup (checked only while no account exists). */
  async setup(request: SetupRequest, hostRefusal: string | null = null): Promise<string> {
    if (hostRefusal !== null && (await this.users.count()) === 0) throw new ForbiddenError(hostRefusal);
    const user = await this.users.createFirst(request.username, request.password);
    if (!user) throw new ConflictError('setup is done: an account already exists');
    await this.settings.set(SETUP_MODE_SETTING, request.mode);
    await this.users.recordSignIn(user);
    return this.sessions.issueSession(user);
  }

  /** Unknown user and wrong password fail alike, and cost the same bcrypt comparison. */
  async login(username: string, password: string): Promise<SignInOutcome> {
    const user = await this.users.findByUsername(username);
    const valid = await verifyPassword(password, user && !user.disabled ? user.passwordHash : null);
    if (!user) throw new SignInFailed(username, 'unknown user');
    if (user.disabled) throw new SignInFailed(username, 'account disabled');
    if (!valid) throw new SignInFailed(username, 'wrong password');
    if (user.totpEnabled) {
      return {
        kind: 'challenge',
        response: { totp_required: true, challenge: await this.sessions.issueChallenge(user) },
      };
    }
    await this.users.recordSignIn(user);
    return { kind: 'session', token: await this.sessions.issueSession(user) };
  }

  /** The account a valid challenge names (for the throttle); spends nothing. */
  accountOfChallenge(challenge: string): Promise<User | null> {
    return this.sessions.userOfChallenge(challenge);
  }

  /** The challenge is spent before the code is checked: one try per challenge, right or wrong. */
  async loginWithCode(challenge: string, code: string): Promise<string> {
    const user = await this.sessions.spendChallenge(challenge);
    if (!user) throw new ChallengeExpired();
    if (!(await this.totp.verifySignIn(user, code))) throw new SecondFactorFailed(user.username);
    await this.users.recordSignIn(user);
    return this.sessions.issueSession(user);
  }
}

export class ChallengeExpired extends Error {
  constructor() {
    super('the sign-in challenge has expired or was already used: sign in again');
  }
}

export class SecondFactorFailed extends Error {
  constructor(readonly username: string) {
    super('invalid code');
  }
}
