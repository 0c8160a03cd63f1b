import { createCipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The stored form of an API key as InstallationSecretsService keeps it: a SHA-256 hex digest for
 * checking, and a copy sealed with AES-256-GCM under a key derived from the session secret, so
 * administrators can read it back. A restore stores the document's key under this installation's
 * own session secret. Keep in step with that service; the API test reads the restored key back
 * through GET /api/settings and signs in with it.
 */
export function apiKeyRows(sessionKey: Buffer, apiKey: string): { hash: string; sealed: string } {
  const sealKey = Buffer.from(hkdfSync('sha256', sessionKey, Buffer.alloc(0), 'monitor api key seal', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
  const body = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
  return {
    hash: createHash('sha256').update(apiKey).digest('hex'),
    sealed: [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.'),
  };
}
