import { generateRecoveryCodes, hashRecoveryCode, normalizeRecoveryCode } from './recovery-codes';

describe('recovery codes', () => {
  it('makes eight distinct codes of sixteen characters in four groups', () => {
    const codes = generateRecoveryCodes();
    expect(codes).toHaveLength(8);
    expect(new Set(codes).size).toBe(8);
    for (const code of codes) expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  });

  it('accepts a code typed in lower case, without dashes or with spaces', () => {
    const [code] = generateRecoveryCodes(1);
    const compact = code.replace(/-/g, '');
    expect(normalizeRecoveryCode(code)).toBe(compact);
    expect(normalizeRecoveryCode(code.toLowerCase())).toBe(compact);
    expect(normalizeRecoveryCode(code.replace(/-/g, ' '))).toBe(compact);
  });

  it.each(['', '123456', 'ABCD-EFGH-JKMN', 'ABCD-EFGH-JKMN-PQRS-TUVW', 'ABCD-EFGH-JKMN-PQR0'])(
    'refuses %p',
    (input) => {
      expect(normalizeRecoveryCode(input)).toBeNull();
    },
  );

  it('stores a SHA-256 hash, never the code', () => {
    const hash = hashRecoveryCode('ABCDEFGHJKMNPQRS');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain('ABCD');
  });
});
