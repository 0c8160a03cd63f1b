import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../core/clock/clock';
import { writeAtomically } from '../core/database/write-atomically';
import { InstallationSecretEntity } from './installation-secret.entity';

const SESSION_SECRET = 'session_secret';
const API_KEY_HASH = 'api_key_hash';
const API_KEY_SEALED = 'api_key_sealed';

/**
 * Secrets the installation generates for itself: the key that signs sessions (made on first start)
 * and the API key. The API key is stored as a SHA-256 hash for checking, plus a copy sealed with
 * AES-256-GCM so administrators can read it back in the settings.
 */
@Injectable()
export class InstallationSecretsService {
  private sessionSecret?: Buffer;

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  private get repository() {
    return this.dataSource.getRepository(InstallationSecretEntity);
  }

  /** The session signing key, generated and stored on first use. */
  async sessionKey(): Promise<Buffer> {
    if (this.sessionSecret) return this.sessionSecret;
    const stored = await this.repository.findOneBy({ key: SESSION_SECRET });
    if (stored) {
      this.sessionSecret = Buffer.from(stored.value, 'base64');
    } else {
      const secret = randomBytes(32).toString('base64');
      // INSERT OR IGNORE, read back in the same transaction: racing first requests end with one secret.
      const value = await writeAtomically(this.dataSource, (db) => {
        db.prepare(
          `INSERT OR IGNORE INTO installation_secrets (key, value, created_at) VALUES (?, ?, ?)`,
        ).run(SESSION_SECRET, secret, this.clock.now());
        return db.prepare('SELECT value FROM installation_secrets WHERE key = ?').pluck().get(SESSION_SECRET);
      });
      this.sessionSecret = Buffer.from(value as string, 'base64');
    }
    return this.sessionSecret;
  }

  /**
   * Generates a new API key (the old one stops working at once) and returns it in clear. Hash and
   * sealed copy are replaced together in one transaction, so racing rotations leave exactly one
   * key: the last one written, which its answer carries, valid when it was answered.
   */
  async rotateApiKey(): Promise<string> {
    const key = `mk_${randomBytes(32).toString('base64url')}`;
    const sealed = await this.seal(key);
    const now = this.clock.now();
    await writeAtomically(this.dataSource, (db) => {
      const replace = db.prepare(
        'INSERT OR REPLACE INTO installation_secrets (key, value, created_at) VALUES (?, ?, ?)',
      );
      replace.run(API_KEY_HASH, sha256(key), now);
      replace.run(API_KEY_SEALED, sealed, now);
    });
    return key;
  }

  async removeApiKey(): Promise<void> {
    await writeAtomically(this.dataSource, (db) =>
      db.prepare('DELETE FROM installation_secrets WHERE key IN (?, ?)').run(API_KEY_HASH, API_KEY_SEALED),
    );
  }

  /** Whether `presented` is the current API key; constant time in the key's content. */
  async isApiKey(presented: string): Promise<boolean> {
    const stored = await this.repository.findOneBy({ key: API_KEY_HASH });
    if (!stored) return false;
    const given = Buffer.from(sha256(presented), 'hex');
    const expected = Buffer.from(stored.value, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** The API key in clear, or null when none is set. */
  async apiKey(): Promise<string | null> {
    const stored = await this.repository.findOneBy({ key: API_KEY_SEALED });
    return stored ? this.unseal(stored.value) : null;
  }

  private async sealKey(): Promise<Buffer> {
    return Buffer.from(
      hkdfSync('sha256', await this.sessionKey(), Buffer.alloc(0), 'monitor api key seal', 32),
    );
  }

  private async seal(text: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.sealKey(), iv);
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
  }

  private async unseal(sealed: string): Promise<string | null> {
    const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    try {
      const decipher = createDecipheriv('aes-256-gcm', await this.sealKey(), iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
