import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '../core/clock/clock';
import { InstallationSecretsRepository } from './installation-secrets.repository';

const SESSION_SECRET = 'session_secret';
const API_KEY_HASH = 'api_key_hash';
const API_KEY_SEALED = 'api_key_sealed';
const METRICS_TOKEN_HASH = 'metrics_token_hash';

/**
 * Secrets the installation generates for itself: the key that signs sessions (made on first start)
 * and the API key. The API key is stored as a SHA-256 hash for checking, plus a copy sealed with
 * AES-256-GCM so administrators can read it back in the settings.
 */
@Injectable()
export class InstallationSecretsService {
  private sessionSecret?: Buffer;

  constructor(
    private readonly repository: InstallationSecretsRepository,
    private readonly clock: Clock,
  ) {}

  /** The session signing key, generated and stored on first use. */
  async sessionKey(): Promise<Buffer> {
    if (this.sessionSecret) return this.sessionSecret;
    const stored = await this.repository.get(SESSION_SECRET);
    if (stored) {
      this.sessionSecret = Buffer.from(stored, 'base64');
    } else {
      const secret = randomBytes(32).toString('base64');
      // Racing first requests end with one secret.
      const value = await this.repository.getOrCreate(SESSION_SECRET, secret, this.clock.now());
      this.sessionSecret = Buffer.from(value, 'base64');
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
    await this.repository.replace(
      { [API_KEY_HASH]: sha256(key), [API_KEY_SEALED]: sealed },
      this.clock.now(),
    );
    return key;
  }

  async removeApiKey(): Promise<void> {
    await this.repository.remove([API_KEY_HASH, API_KEY_SEALED]);
  }

  /** Whether `presented` is the current API key; constant time in the key's content. */
  async isApiKey(presented: string): Promise<boolean> {
    const stored = await this.repository.get(API_KEY_HASH);
    if (!stored) return false;
    const given = Buffer.from(sha256(presented), 'hex');
    const expected = Buffer.from(stored, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * Generates a new metrics token (the old one stops working at once) and returns it in clear, the
   * only time it is shown: only its SHA-256 hash is kept.
   */
  async rotateMetricsToken(): Promise<{ token: string; createdAt: number }> {
    const token = `mt_${randomBytes(32).toString('base64url')}`;
    const createdAt = this.clock.now();
    await this.repository.replace({ [METRICS_TOKEN_HASH]: sha256(token) }, createdAt);
    return { token, createdAt };
  }

  async removeMetricsToken(): Promise<void> {
    await this.repository.remove([METRICS_TOKEN_HASH]);
  }

  /**
   * Whether `presented` is the current metrics token; constant time in the token's content. Read
   * from the database on every call, so a rotation on one instance holds on all of them at once.
   */
  async isMetricsToken(presented: string): Promise<boolean> {
    const stored = await this.repository.get(METRICS_TOKEN_HASH);
    if (!stored) return false;
    const given = Buffer.from(sha256(presented), 'hex');
    const expected = Buffer.from(stored, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** When the current metrics token was made, or null when none is set. */
  async metricsTokenCreatedAt(): Promise<number | null> {
    return this.repository.createdAt(METRICS_TOKEN_HASH);
  }

  /** The API key in clear, or null when none is set. */
  async apiKey(): Promise<string | null> {
    const stored = await this.repository.get(API_KEY_SEALED);
    return stored ? this.unseal(stored) : null;
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
