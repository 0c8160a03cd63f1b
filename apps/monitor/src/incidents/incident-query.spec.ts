import { containsPattern } from '../core/database/like-pattern';
import { parseRfc3339, toIncidentFilter } from './incident-query';

describe('parseRfc3339', () => {
  it.each([
    ['2026-11-21T12:00:00Z', Date.UTC(2026, 10, 21, 12)],
    ['2026-11-21t12:00:00z', Date.UTC(2026, 10, 21, 12)],
    ['2026-11-21 12:00:00Z', Date.UTC(2026, 10, 21, 12)],
    ['2026-11-21T14:00:00+02:00', Date.UTC(2026, 10, 21, 12)],
    ['2026-11-21T14:00:00 02:00', Date.UTC(2026, 10, 21, 12)],
    ['2026-11-21T10:30:00-01:30', Date.UTC(2026, 10, 21, 12)],
    ['2026-11-21T12:00:00.25Z', Date.UTC(2026, 10, 21, 12) + 250],
    ['2026-11-21T12:00:00.123456Z', Date.UTC(2026, 10, 21, 12) + 123],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
  ])('%s', (text, expected) => {
    expect(parseRfc3339(text)).toBe(expected);
  });

  it.each([
    '',
    'yesterday',
    '2026-11-21',
    '2026-11-21T12:00:00',
    '2026-11-21T12:00Z',
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-11-00T00:00:00Z',
    '2026-11-21T24:00:00Z',
    '2026-11-21T12:60:00Z',
    '2026-11-21T12:00:00+24:00',
    ' 2026-11-21T12:00:00Z',
  ])('refuses %j', (text) => {
    expect(parseRfc3339(text)).toBeNull();
  });
});

describe('containsPattern', () => {
  it('escapes the LIKE wildcards and the escape character', () => {
    expect(containsPattern('abc')).toBe('%abc%');
    expect(containsPattern('50%')).toBe('%50\\%%');
    expect(containsPattern('a_b')).toBe('%a\\_b%');
    expect(containsPattern('C:\\x')).toBe('%C:\\\\x%');
  });
});

describe('toIncidentFilter', () => {
  const now = Date.UTC(2026, 10, 21, 12);

  it('defaults: every state, limit 50, no bounds', () => {
    expect(toIncidentFilter({}, now)).toEqual({ state: 'all', openOnly: false, limit: 50 });
  });

  it('range bounds both ends; all only the upper one; since is then ignored', () => {
    expect(toIncidentFilter({ range: '24h', since: 'junk' }, now)).toMatchObject({
      startedFrom: now - 86_400_000,
      startedTo: now,
    });
    const all = toIncidentFilter({ range: 'all' }, now);
    expect(all.startedFrom).toBeUndefined();
    expect(all.startedTo).toBe(now);
  });

  it('since is a lower bound only; an invalid one names the parameter', () => {
    expect(toIncidentFilter({ since: '2026-11-20T12:00:00Z' }, now)).toMatchObject({
      startedFrom: now - 86_400_000,
    });
    expect(toIncidentFilter({ since: '2026-11-20T12:00:00Z' }, now).startedTo).toBeUndefined();
    expect(() => toIncidentFilter({ since: 'junk' }, now)).toThrow(/since/);
  });
});
