import { HISTORY_RANGES } from '@monitor/contracts';
import { InvalidInputError } from '../errors';
import { chooseTier, DAY_MS, historyWindow, HOUR_MS, parseRange } from './history-range';

const DEFAULT = { rawMs: 7 * DAY_MS, hourlyMs: 90 * DAY_MS };

describe('chooseTier', () => {
  it.each([
    ['1h', 'raw'],
    ['24h', 'raw'],
    ['7d', 'raw'],
    ['30d', 'hourly'],
    ['90d', 'hourly'],
    ['1y', 'daily'],
    ['all', 'daily'],
  ] as const)('with the default retention (7d raw, 90d hourly) reads %s from %s', (range, tier) => {
    expect(chooseTier(range, DEFAULT)).toBe(tier);
  });

  it.each([
    [
      '1h raw, 1h hourly',
      { rawMs: HOUR_MS, hourlyMs: HOUR_MS },
      ['raw', 'daily', 'daily', 'daily', 'daily', 'daily', 'daily'],
    ],
    [
      '36h raw, 30d hourly',
      { rawMs: 36 * HOUR_MS, hourlyMs: 30 * DAY_MS },
      ['raw', 'raw', 'hourly', 'hourly', 'daily', 'daily', 'daily'],
    ],
    [
      '6d raw (7d does not fit)',
      { rawMs: 6 * DAY_MS, hourlyMs: 90 * DAY_MS },
      ['raw', 'raw', 'hourly', 'hourly', 'hourly', 'daily', 'daily'],
    ],
    [
      '30d raw, 365d hourly',
      { rawMs: 30 * DAY_MS, hourlyMs: 365 * DAY_MS },
      ['raw', 'raw', 'raw', 'raw', 'hourly', 'hourly', 'daily'],
    ],
    [
      '89d hourly (90d does not fit)',
      { rawMs: 7 * DAY_MS, hourlyMs: 89 * DAY_MS },
      ['raw', 'raw', 'raw', 'hourly', 'daily', 'daily', 'daily'],
    ],
    [
      '400d raw and hourly',
      { rawMs: 400 * DAY_MS, hourlyMs: 400 * DAY_MS },
      ['raw', 'raw', 'raw', 'raw', 'raw', 'raw', 'daily'],
    ],
  ])('with %s', (_label, retention, tiers) => {
    expect(HISTORY_RANGES.map((range) => chooseTier(range, retention))).toEqual(tiers);
  });
});

describe('parseRange', () => {
  it.each(HISTORY_RANGES)('accepts %s', (range) => expect(parseRange(range)).toBe(range));

  it.each([['2h'], [''], ['1Y'], [undefined], [7]])('refuses %p naming the parameter', (value) => {
    expect(() => parseRange(value)).toThrow(InvalidInputError);
    expect(() => parseRange(value)).toThrow(/^range must be one of 1h, 24h, 7d, 30d, 90d, 1y, all/);
  });
});

describe('historyWindow', () => {
  const now = Date.UTC(2026, 10, 21, 15, 42, 10);

  it('ends now and starts exactly one range back for raw results', () => {
    expect(historyWindow('24h', 'raw', now)).toEqual({ from: now - DAY_MS, to: now });
  });

  it('starts on a bucket boundary for rollup tiers', () => {
    expect(historyWindow('30d', 'hourly', now).from).toBe(Date.UTC(2026, 9, 22, 15));
    expect(historyWindow('1y', 'daily', now).from).toBe(Date.UTC(2025, 10, 21));
  });

  it('starts "all" at the oldest bucket, or today without any', () => {
    const oldest = Date.UTC(2024, 1, 3, 7, 0);
    expect(historyWindow('all', 'daily', now, oldest)).toEqual({ from: Date.UTC(2024, 1, 3), to: now });
    expect(historyWindow('all', 'daily', now, null).from).toBe(Date.UTC(2026, 10, 21));
  });
});
