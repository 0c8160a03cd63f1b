import { LoginThrottle } from './login-throttle';

describe('LoginThrottle', () => {
  const t0 = 1_000_000;

  it('allows five failures a minute and refuses the sixth attempt', () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 5; i++) {
      expect(throttle.retryAfterSeconds('1.2.3.4', t0 + i)).toBe(0);
      throttle.recordFailure('1.2.3.4', t0 + i);
    }
    expect(throttle.retryAfterSeconds('1.2.3.4', t0 + 10)).toBe(60);
  });

  it('frees the address once the oldest failure is a minute old', () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 5; i++) throttle.recordFailure('a', t0 + i * 1000);
    expect(throttle.retryAfterSeconds('a', t0 + 59_000)).toBe(1);
    expect(throttle.retryAfterSeconds('a', t0 + 60_000)).toBe(0);
    throttle.recordFailure('a', t0 + 60_000);
    expect(throttle.retryAfterSeconds('a', t0 + 60_001)).toBe(1);
  });

  it('counts each address on its own', () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 5; i++) throttle.recordFailure('a', t0);
    expect(throttle.retryAfterSeconds('a', t0)).toBeGreaterThan(0);
    expect(throttle.retryAfterSeconds('b', t0)).toBe(0);
  });

  it('honours a custom limit and window', () => {
    const throttle = new LoginThrottle(2, 10_000);
    throttle.recordFailure('a', t0);
    expect(throttle.retryAfterSeconds('a', t0)).toBe(0);
    throttle.recordFailure('a', t0 + 1000);
    expect(throttle.retryAfterSeconds('a', t0 + 1000)).toBe(9);
    expect(throttle.retryAfterSeconds('a', t0 + 9999)).toBe(1);
    expect(throttle.retryAfterSeconds('a', t0 + 10_000)).toBe(0);
    expect(throttle.retryAfterSeconds('a', t0 + 11_000)).toBe(0);
  });

  it('sweep forgets addresses without recent failures', () => {
    const throttle = new LoginThrottle();
    throttle.recordFailure('old', t0);
    throttle.recordFailure('new', t0 + 50_000);
    throttle.sweep(t0 + 70_000);
    expect((throttle as unknown as { failures: Map<string, number[]> }).failures.size).toBe(1);
  });
});

describe('LoginThrottle attempts in flight', () => {
  const t0 = 1_000_000;

  it('lets at most five attempts from one address be checked at once', () => {
    const throttle = new LoginThrottle();
    const waits = Array.from({ length: 8 }, () => throttle.begin('a', t0));
    expect(waits).toEqual([0, 0, 0, 0, 0, 1, 1, 1]);
    expect(throttle.begin('b', t0)).toBe(0);
  });

  it('frees the place of a success and keeps a failure for the window', () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 5; i++) expect(throttle.begin('a', t0)).toBe(0);
    throttle.settle('a', false, t0);
    expect(throttle.begin('a', t0)).toBe(0);
    for (let i = 0; i < 5; i++) throttle.settle('a', true, t0);
    expect(throttle.retryAfterSeconds('a', t0)).toBe(60);
    expect(throttle.begin('a', t0 + 1)).toBe(60);
  });
});
