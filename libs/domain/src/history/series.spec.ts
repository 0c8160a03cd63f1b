import { DAY_MS, HOUR_MS } from './history-range';
import { summarise } from './rollup-bucket';
import { chooseStep, fillSeries, MAX_SERIES_POINTS, pointStarts } from './series';

const MINUTE = 60_000;

describe('chooseStep', () => {
  it.each([
    ['1h raw @60s', HOUR_MS, 'raw', 60_000, MINUTE],
    ['1h raw @20s', HOUR_MS, 'raw', 20_000, MINUTE],
    ['1h raw @5m', HOUR_MS, 'raw', 300_000, 5 * MINUTE],
    ['24h raw', DAY_MS, 'raw', 60_000, 5 * MINUTE],
    ['7d raw', 7 * DAY_MS, 'raw', 60_000, 30 * MINUTE],
    ['30d hourly', 30 * DAY_MS, 'hourly', 60_000, 2 * HOUR_MS],
    ['90d hourly', 90 * DAY_MS, 'hourly', 60_000, 6 * HOUR_MS],
    ['1y daily', 365 * DAY_MS, 'daily', 60_000, DAY_MS],
    ['24h daily', DAY_MS, 'daily', 60_000, DAY_MS],
    ['10 years daily', 3650 * DAY_MS, 'daily', 60_000, 14 * DAY_MS],
    ['100 years daily', 36500 * DAY_MS, 'daily', 60_000, 92 * DAY_MS],
  ] as const)('%s', (_label, windowMs, tier, interval, step) => {
    expect(chooseStep(windowMs, tier, interval)).toBe(step);
  });

  it('never gives more than the maximum number of points', () => {
    for (const days of [1, 7, 30, 90, 365, 1000, 5000]) {
      const windowMs = days * DAY_MS;
      for (const tier of ['raw', 'hourly', 'daily'] as const) {
        const step = chooseStep(windowMs, tier, 1000);
        expect(
          pointStarts(Date.UTC(2026, 0, 1, 13, 17) - windowMs, Date.UTC(2026, 0, 1, 13, 17), step).length,
        ).toBeLessThanOrEqual(MAX_SERIES_POINTS + 1);
      }
    }
  });
});

describe('fillSeries', () => {
  it('gives one point per step with empty steps as count 0 and nulls', () => {
    const from = Date.UTC(2026, 0, 1, 10);
    const buckets = new Map([
      [
        from,
        summarise([
          { success: true, latencyMs: 10 },
          { success: false, latencyMs: null },
        ]),
      ],
      [from + 2 * HOUR_MS, summarise([{ success: true, latencyMs: 4 }])],
    ]);
    expect(fillSeries(buckets, from, from + 3 * HOUR_MS, HOUR_MS)).toEqual([
      { ts: '2026-01-01T10:00:00.000Z', count: 2, up: 1, uptime: 50, avg_ms: 10, min_ms: 10, max_ms: 10 },
      {
        ts: '2026-01-01T11:00:00.000Z',
        count: 0,
        up: null,
        uptime: null,
        avg_ms: null,
        min_ms: null,
        max_ms: null,
      },
      { ts: '2026-01-01T12:00:00.000Z', count: 1, up: 1, uptime: 100, avg_ms: 4, min_ms: 4, max_ms: 4 },
    ]);
  });

  it('aligns the first point down to the step and stops before the end', () => {
    const from = Date.UTC(2026, 0, 1, 10, 7);
    expect(pointStarts(from, from + 10 * MINUTE, 5 * MINUTE).map((t) => new Date(t).toISOString())).toEqual([
      '2026-01-01T10:05:00.000Z',
      '2026-01-01T10:10:00.000Z',
      '2026-01-01T10:15:00.000Z',
    ]);
  });
});
