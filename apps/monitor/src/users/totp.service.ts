import { Injectable } from '@nestjs/common';
import { ConflictError, InvalidInputError, NotFoundError } from '@monitor/domain';
import { generateSecret, generateURI, verify } from 'otplib';
import * as QRCode from 'qrcode';
import { verifyPassword, WrongPassword } from '../auth/passwords';
import { generateRecoveryCodes, hashRecoveryCode, normalizeRecoveryCode } from '../auth/recovery-codes';
import { Clock } from '../core/clock/clock';
import { UnitOfWork } from '../core/database/unit-of-work';
import { UsersRepository, type User } from './users.repository';

const ISSUER = 'Monitor';
/** ±1 step of 30 s. */
const DRIFT_SECONDS = 30;

/**
 * Second-factor enrolment and checks: TOTP (SHA-1, 6 digits, 30 s, ±1 step, a used step refused)
 * and one-time recovery codes stored as SHA-256 hashes.
 */
@Injectable()
export class TotpService {
  constructor(
    private readonly unit: UnitOfWork,
    private readonly repository: UsersRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Stores a new unconfirmed secret (replacing an earlier unconfirmed one). Only while the stored
   * row is off: a confirmation that won meanwhile keeps its secret.
   */
  async start(user: User): Promise<{ secret: string; uri: string }> {
    const alreadyOn = () => new ConflictError('the second factor is already on; disable it first');
    if (user.totpEnabled) throw alreadyOn();
    const secret = generateSecret();
    if (!(await this.repository.startTotp(user.id, secret, this.clock.now()))) throw alreadyOn();
    return { secret, uri: this.uri(user.username, secret) };
  }

  /** PNG of the otpauth URI of the secret being enrolled. */
  async qrPng(user: User): Promise<Buffer> {
    if (user.totpEnabled || !user.totpSecret) throw new NotFoundError('no second factor is being set up');
    return QRCode.toBuffer(this.uri(user.username, user.totpSecret), { type: 'png', margin: 2, width: 240 });
  }

  /**
   * Turns the second factor on with a code of the secret being enrolled. The step, the switch and
   * the recovery codes are written in one transaction that re-checks the stored row, so of racing
   * confirmations exactly one succeeds and its answer holds the codes that are stored.
   */
  async confirm(user: User, code: string): Promise<string[]> {
    if (user.totpEnabled) throw new ConflictError('the second factor is already on');
    const secret = user.totpSecret;
    if (!secret) throw new ConflictError('start the second-factor setup first');
    const step = await this.validStep(secret, user.totpLastStep, code);
    if (step === null) throw new InvalidInputError('code is not valid');
    const codes = generateRecoveryCodes();
    await this.unit.atomically(async (tx) => {
      const stored = await this.repository.storedTotp(tx, user.id);
      if (!stored) throw new InvalidInputError('code is not valid');
      if (stored.totp_enabled) throw new ConflictError('the second factor is already on');
      // Conditional, since a restarted enrolment does not take the lock and may replace the secret.
      if (!(await this.repository.enableTotp(tx, user.id, secret, step, this.clock.now())))
        throw new InvalidInputError('code is not valid');
      await this.repository.storeRecoveryCodes(tx, user.id, hashed(codes));
    });
    return codes;
  }

  async disable(user: User, password: string): Promise<void> {
    await this.requirePassword(user, password);
    // Serialised with regenerating the recovery codes, which checks the second factor is still on.
    await this.unit.atomically((tx) => this.repository.disableTotp(tx, user.id, this.clock.now()));
  }

  /** A new set; checked against the stored row, so a second factor turned off meanwhile gets none. */
  async regenerateRecoveryCodes(user: User, password: string): Promise<string[]> {
    await this.requirePassword(user, password);
    const codes = generateRecoveryCodes();
    await this.unit.atomically(async (tx) => {
      const on = (await this.repository.storedTotp(tx, user.id))?.totp_enabled;
      if (!on) throw new ConflictError('the second factor is off; there are no recovery codes');
      await this.repository.storeRecoveryCodes(tx, user.id, hashed(codes));
    });
    return codes;
  }

  /** A TOTP code of an unused step, or an unused recovery code (which is then spent). */
  async verifySignIn(user: User, code: string): Promise<boolean> {
    if (!user.totpEnabled || !user.totpSecret) return false;
    if (/^\s*\d{6}\s*$/.test(code)) return this.acceptCode(user, code.trim());
    const normalized = normalizeRecoveryCode(code);
    if (!normalized) return false;
    return this.repository.spendRecoveryCode(user.id, hashRecoveryCode(normalized), this.clock.now());
  }

  /** The time step of a valid code not older than the last one used, or null. */
  private async validStep(secret: string, lastStep: number | null, code: string): Promise<number | null> {
    if (!/^\d{6}$/.test(code)) return null;
    const result = await verify({
      secret,
      token: code,
      epoch: Math.floor(this.clock.now() / 1000),
      epochTolerance: DRIFT_SECONDS,
      afterTimeStep: lastStep ?? undefined,
    });
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }

  /** Checks a code and records its time step, so that step can never be used again. */
  private async acceptCode(user: User, code: string): Promise<boolean> {
    if (!user.totpSecret) return false;
    const step = await this.validStep(user.totpSecret, user.totpLastStep, code);
    if (step === null) return false;
    // Conditional update: of two requests racing with the same code, only one records the step.
    return this.repository.recordTotpStep(user.id, step);
  }

  private async requirePassword(user: User, password: string): Promise<void> {
    if (!(await verifyPassword(password, user.passwordHash)))
      throw new WrongPassword('password is not correct');
  }

  private uri(username: string, secret: string): string {
    return generateURI({ issuer: ISSUER, label: username, secret });
  }
}

/** Recovery codes are stored as hashes of their normal form. */
const hashed = (codes: string[]): string[] =>
  codes.map((code) => hashRecoveryCode(normalizeRecoveryCode(code) as string));
