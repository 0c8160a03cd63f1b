import { Injectable } from '@nestjs/common';
import { ConflictError, InvalidInputError, NotFoundError } from '@monitor/domain';
import { generateSecret, generateURI, verify } from 'otplib';
import type Database from 'better-sqlite3';
import * as QRCode from 'qrcode';
import { DataSource, IsNull } from 'typeorm';
import { verifyPassword } from '../auth/passwords';
import { generateRecoveryCodes, hashRecoveryCode, normalizeRecoveryCode } from '../auth/recovery-codes';
import { Clock } from '../core/clock/clock';
import { writeAtomically } from '../core/database/write-atomically';
import { RecoveryCodeEntity } from './recovery-code.entity';
import { UserEntity } from './user.entity';

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
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  private get users() {
    return this.dataSource.getRepository(UserEntity);
  }

  /**
   * Stores a new unconfirmed secret (replacing an earlier unconfirmed one). Only while the stored
   * row is off: a confirmation that won meanwhile keeps its secret.
   */
  async start(user: UserEntity): Promise<{ secret: string; uri: string }> {
    const alreadyOn = () => new ConflictError('the second factor is already on; disable it first');
    if (user.totpEnabled) throw alreadyOn();
    const secret = generateSecret();
    const stored = await this.users.update(
      { id: user.id, totpEnabled: false },
      { totpSecret: secret, totpLastStep: null, updatedAt: this.clock.now() },
    );
    if (stored.affected !== 1) throw alreadyOn();
    return { secret, uri: this.uri(user.username, secret) };
  }

  /** PNG of the otpauth URI of the secret being enrolled. */
  async qrPng(user: UserEntity): Promise<Buffer> {
    if (user.totpEnabled || !user.totpSecret) throw new NotFoundError('no second factor is being set up');
    return QRCode.toBuffer(this.uri(user.username, user.totpSecret), { type: 'png', margin: 2, width: 240 });
  }

  /**
   * Turns the second factor on with a code of the secret being enrolled. The step, the switch and
   * the recovery codes are written in one transaction that re-checks the stored row, so of racing
   * confirmations exactly one succeeds and its answer holds the codes that are stored.
   */
  async confirm(user: UserEntity, code: string): Promise<string[]> {
    if (user.totpEnabled) throw new ConflictError('the second factor is already on');
    const secret = user.totpSecret;
    if (!secret) throw new ConflictError('start the second-factor setup first');
    const step = await this.validStep(secret, user.totpLastStep, code);
    if (step === null) throw new InvalidInputError('code is not valid');
    const codes = generateRecoveryCodes();
    await writeAtomically(this.dataSource, (db) => {
      const stored = db
        .prepare('SELECT totp_enabled, totp_secret, totp_last_step FROM users WHERE id = ?')
        .get(user.id) as { totp_enabled: number; totp_secret: string | null; totp_last_step: number | null };
      if (stored.totp_enabled) throw new ConflictError('the second factor is already on');
      if (stored.totp_secret !== secret || (stored.totp_last_step ?? -1) >= step)
        throw new InvalidInputError('code is not valid');
      db.prepare('UPDATE users SET totp_enabled = 1, totp_last_step = ?, updated_at = ? WHERE id = ?').run(
        step,
        this.clock.now(),
        user.id,
      );
      storeRecoveryCodes(db, user.id, codes);
    });
    return codes;
  }

  async disable(user: UserEntity, password: string): Promise<void> {
    await this.requirePassword(user, password);
    await this.dataSource.transaction(async (manager) => {
      await manager.delete(RecoveryCodeEntity, { userId: user.id });
      await manager.update(
        UserEntity,
        { id: user.id },
        { totpEnabled: false, totpSecret: null, totpLastStep: null, updatedAt: this.clock.now() },
      );
    });
  }

  /** A new set; checked against the stored row, so a second factor turned off meanwhile gets none. */
  async regenerateRecoveryCodes(user: UserEntity, password: string): Promise<string[]> {
    await this.requirePassword(user, password);
    const codes = generateRecoveryCodes();
    await writeAtomically(this.dataSource, (db) => {
      const on = db.prepare('SELECT totp_enabled FROM users WHERE id = ?').pluck().get(user.id);
      if (!on) throw new ConflictError('the second factor is off; there are no recovery codes');
      storeRecoveryCodes(db, user.id, codes);
    });
    return codes;
  }

  /** A TOTP code of an unused step, or an unused recovery code (which is then spent). */
  async verifySignIn(user: UserEntity, code: string): Promise<boolean> {
    if (!user.totpEnabled || !user.totpSecret) return false;
    if (/^\s*\d{6}\s*$/.test(code)) return this.acceptCode(user, code.trim());
    const normalized = normalizeRecoveryCode(code);
    if (!normalized) return false;
    const spent = await this.dataSource
      .getRepository(RecoveryCodeEntity)
      .update(
        { userId: user.id, codeHash: hashRecoveryCode(normalized), usedAt: IsNull() },
        { usedAt: this.clock.now() },
      );
    return spent.affected === 1;
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
  private async acceptCode(user: UserEntity, code: string): Promise<boolean> {
    if (!user.totpSecret) return false;
    const step = await this.validStep(user.totpSecret, user.totpLastStep, code);
    if (step === null) return false;
    // Conditional update: of two requests racing with the same code, only one records the step.
    const recorded = await this.users
      .createQueryBuilder()
      .update()
      .set({ totpLastStep: step })
      .where('id = :id AND (totp_last_step IS NULL OR totp_last_step < :step)', { id: user.id, step })
      .execute();
    return recorded.affected === 1;
  }

  private async requirePassword(user: UserEntity, password: string): Promise<void> {
    if (!(await verifyPassword(password, user.passwordHash)))
      throw new InvalidInputError('password is not correct');
  }

  private uri(username: string, secret: string): string {
    return generateURI({ issuer: ISSUER, label: username, secret });
  }
}

/** Replaces the account's recovery codes with `codes` (stored hashed); inside `writeAtomically`. */
function storeRecoveryCodes(db: Database.Database, userId: number, codes: string[]): void {
  db.prepare('DELETE FROM recovery_codes WHERE user_id = ?').run(userId);
  const insert = db.prepare('INSERT INTO recovery_codes (user_id, code_hash, used_at) VALUES (?, ?, NULL)');
  for (const code of codes) insert.run(userId, hashRecoveryCode(normalizeRecoveryCode(code) as string));
}
