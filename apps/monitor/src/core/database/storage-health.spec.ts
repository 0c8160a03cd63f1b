import { StorageHealth } from './storage-health';

describe('StorageHealth', () => {
  it('reports the start and the end of a spell of failures once each', () => {
    const health = new StorageHealth();
    expect(health.problem()).toBeNull();
    expect(health.failed('SQLITE_FULL: database or disk is full', 1000)).toBe(true);
    expect(health.failed('SQLITE_FULL: database or disk is full', 2000)).toBe(false);
    expect(health.problem()).toEqual({ since: 1000, reason: 'SQLITE_FULL: database or disk is full' });
    expect(health.recovered()).toBe(true);
    expect(health.recovered()).toBe(false);
    expect(health.problem()).toBeNull();
  });
});
