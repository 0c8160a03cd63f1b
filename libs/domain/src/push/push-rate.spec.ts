import { PushRateLimit } from './push-rate';

describe('push rate limit', () => {
  it('allows 10 pushes in one second per token, then answers the seconds to wait', () => {
    const limit = new PushRateLimit();
    for (let i = 0; i < 10; i++) expect(limit.take('a', 1000 + i)).toBeNull();
    expect(limit.take('a', 1500)).toBe(1);
    expect(limit.take('b', 1500)).toBeNull();
    expect(limit.take('a', 2000)).toBeNull();
  });

  it('forgets tokens that stopped pushing', () => {
    const limit = new PushRateLimit();
    for (let i = 0; i < 50; i++) limit.take(`t${i}`, 0);
    expect(limit.size).toBe(50);
    limit.sweep(1999);
    expect(limit.size).toBe(50);
    limit.sweep(2000);
    expect(limit.size).toBe(0);
  });

  it('sweeps by itself as it is used, so idle tokens do not pile up', () => {
    const limit = new PushRateLimit();
    for (let i = 0; i < 1000; i++) limit.take(`old${i}`, 0);
    for (let i = 0; i < 100; i++) limit.take('new', 10_000 + i * 100);
    expect(limit.size).toBeLessThanOrEqual(1);
  });
});
