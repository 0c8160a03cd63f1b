import { Injectable } from '@nestjs/common';
import { ConflictError, InvalidInputError, NotFoundError } from '@monitor/domain';
import { generateSecret, generateURI, verify } from 'otplib';
import * as QRCode from 'qrcode';
import { DataSource, IsNull } from 'typeorm';
import { verifyPassword } from '../auth/passwords';
import { generateRecoveryCodes, hashRecoveryCode, normalizeRecoveryCode } from '../auth/recovery-codes';
import { Clock } from '../core/clock/clock';
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

  /** Stores a new unconfirmed secret (replacing an earlier unconfirmed one). */
  async start(user: UserEntity): Promise<{ secret: string; uri: string }> {
    if (user.totpEnabled) throw new ConflictError('the second factor is already on; disable it first');
    const secret = generateSecret();
    await this.users.update(
      { id: user.id },
      { totpSecret: secret, totpLastStep: null, updatedAt: this.clock.now() },
    );
    return { secret, uri: this.uri(user.username, secret) };
  }

  /** PNG of the otpauth URI of the secret being enrolled. */
  async qrPng(user: UserEntity): Promise<Buffer> {
    if (user.totpEnabled || !user.totpSecret) throw new NotFoundError('no second factor is being set up');
    return QRCode.toBuffer(this.uri(user.username, user.totpSecret), { type: 'png', margin: 2, width: 240 });
  }

  async confirm(user: UserEntity, code: string): Promise<string[]> {
    if (user.totpEnabled) throw new ConflictError('the second factor is already on');
    if (!user.totpSecret) throw new ConflictError('start the second-factor setup first');
    if (!(await this.acceptCode(user, code))) throw new InvalidInputError('code is not valid');
    await this.users.update({ id: user.id }, { totpEnabled: true, updatedAt: this.clock.now() });
    return this.replaceRecoveryCodes(user.id);
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

  async regenerateRecoveryCodes(user: UserEntity, password: string): Promise<string[]> {
    await this.requirePassword(user, password);
    if (!user.totpEnabled) throw new ConflictError('the second factor is off; there are no recovery codes');
    return this.replaceRecoveryCodes(user.id);
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

  /** Checks a code and records its time step, so that step can never be used again. */
  private async acceptCode(user: UserEntity, code: string): Promise<boolean> {
    if (!user.totpSecret || !/^\d{6}$/.test(code)) return false;
    const result = await verify({
      secret: user.totpSecret,
      token: code,
      epoch: Math.floor(this.clock.now() / 1000),
      epochTolerance: DRIFT_SECONDS,
      afterTimeStep: user.totpLastStep ?? undefined,
    });
    if (!result.valid || !('timeStep' in result)) return false;
    // Conditional update: of two requests racing with the same code, only one records the step.
    const recorded = await this.users
      .createQueryBuilder()
      .update()
      .set({ totpLastStep: result.timeStep })
      .where('id = :id AND (totp_last_step IS NULL OR totp_last_step < :step)', {
        id: user.id,
        step: result.timeStep,
      })
      .execute();
    return recorded.affected === 1;
  }

  private async replaceRecoveryCodes(userId: number): Promise<string[]> {
    const codes = generateRecoveryCodes();
    await this.dataSource.transaction(async (manager) => {
      await manager.delete(RecoveryCodeEntity, { userId });
      await manager.insert(
        RecoveryCodeEntity,
        codes.map((code) => ({
          userId,
          codeHash: hashRecoveryCode(normalizeRecoveryCode(code) as string),
          usedAt: null,
        })),
      );
    });
    return codes;
  }

  private async requirePassword(user: UserEntity, password: string): Promise<void> {
    if (!(await verifyPassword(password, user.passwordHash)))
      throw new InvalidInputError('password is not correct');
  }

  private uri(username: string, secret: string): string {
    return generateURI({ issuer: ISSUER, label: username, secret });
  }
}
