/**
 * Every API test app runs this over every response body it sent when it closes: password hashes,
 * recovery-code and API-key hashes, and the names of credential columns must never reach a client.
 */
export function expectNoCredentialHashes(bodies: string[]): void {
  for (const body of bodies) {
    expect(body).not.toMatch(/\$2[aby]\$\d\d\$/); // bcrypt hash
    expect(body).not.toMatch(/\b[0-9a-f]{64}\b/); // SHA-256 hex (recovery codes, API key hash)
    expect(body).not.toMatch(/password_hash|passwordHash|totp_secret|totpSecret|code_hash|codeHash/);
  }
}
