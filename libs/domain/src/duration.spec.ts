import { formatDuration, parseDurationSeconds } from './duration';

describe('parseDurationSeconds', () => {
  it.each([
    [7, 7 * 86400],
    ['7', 7 * 86400],
    ['7d', 7 * 86400],
    ['36h', 36 * 3600],
    ['2w', 14 * 86400],
    ['90m', 5400],
    ['30s', 30],
    [' 1.5d ', 129600],
    ['12H', 12 * 3600],
  ])('%p → %p seconds', (input, expected) => {
    expect(parseDurationSeconds(input)).toBe(expected);
  });

  it.each([[0], [-1], ['0d'], ['abc'], ['7 days'], ['d'], [''], [null], [true], [{}], [Number.NaN]])(
    'rejects %p',
    (input) => {
      expect(parseDurationSeconds(input)).toBeNull();
    },
  );
});

describe('formatDuration', () => {
  it.each([
    [604800 * 2, '14d'],
    [604800, '7d'],
    [7776000, '90d'],
    [129600, '36h'],
    [5400, '90m'],
    [61, '61s'],
  ])('%p → %p', (seconds, expected) => {
    expect(formatDuration(seconds)).toBe(expected);
  });
});
