import { randomBytes } from 'node:crypto';
import { signToken, verifyToken } from './signed-token';

describe('signed tokens', () => {
  const secret = randomBytes(32);
  const now = Date.parse('2026-11-21T12:00:00Z');
  const week = 7 * 86400_000;

  it('round-trips the fields until the expiry', () => {
    const token = signToken(secret, 'session', [42, 3], now + week);
    expect(verifyToken(secret, 'session', token, 2, now)).toEqual([42, 3]);
    expect(verifyToken(secret, 'session', token, 2, now + week - 1000)).toEqual([42, 3]);
    expect(verifyToken(secret, 'session', token, 2, now + week)).toBeNull();
  });

  it('refuses a token signed for another purpose', () => {
    const challenge = signToken(secret, 'totp-challenge', [42, 3], now + 120_000);
    expect(verifyToken(secret, 'session', challenge, 2, now)).toBeNull();
    expect(verifyToken(secret, 'totp-challenge', challenge, 2, now)).toEqual([42, 3]);
  });

  it('refuses a token signed with another secret, or altered in any field', () => {
    const token = signToken(secret, 'session', [42, 3], now + week);
    expect(verifyToken(randomBytes(32), 'session', token, 2, now)).toBeNull();
    const [user, epoch, expiry, sig] = token.split('.');
    expect(
      verifyToken(secret, 'session', [String(Number(user) + 1), epoch, expiry, sig].join('.'), 2, now),
    ).toBeNull();
    expect(verifyToken(secret, 'session', [user, '4', expiry, sig].join('.'), 2, now)).toBeNull();
    expect(
      verifyToken(secret, 'session', [user, epoch, String(Number(expiry) + 999), sig].join('.'), 2, now),
    ).toBeNull();
  });

  it.each([undefined, '', 'garbage', 'a.b.c.d', '1.2.3', 'x'.repeat(500)])('refuses %p', (token) => {
    expect(verifyToken(secret, 'session', token, 2, now)).toBeNull();
  });
});
