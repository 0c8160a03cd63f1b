import { BCRYPT_WORK, hashPassword, verifyPassword } from './passwords';

describe('bcrypt work', () => {
  it('runs at most BCRYPT_WORK.limit hashes and comparisons at once; the rest wait', async () => {
    expect(BCRYPT_WORK.limit).toBeGreaterThanOrEqual(1);
    expect(BCRYPT_WORK.limit).toBeLessThanOrEqual(2);
    const hash = await hashPassword('long enough password');
    const checks = [
      ...Array.from({ length: 3 }, () => verifyPassword('long enough password', hash)),
      ...Array.from({ length: 2 }, () => verifyPassword('a wrong password', hash)),
      hashPassword('another password'),
    ];
    expect(BCRYPT_WORK.running).toBe(BCRYPT_WORK.limit);
    expect(BCRYPT_WORK.queued).toBe(checks.length - BCRYPT_WORK.limit);
    const results = await Promise.all(checks);
    expect(results.slice(0, 5)).toEqual([true, true, true, false, false]);
    expect([BCRYPT_WORK.running, BCRYPT_WORK.queued]).toEqual([0, 0]);
  });
});
