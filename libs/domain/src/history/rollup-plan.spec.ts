import { DAY_MS, HOUR_MS } from './history-range';
import { daysDue, hoursDue, pruneCutoffs, SETTLE_MS, splitSpan } from './rollup-plan';

const at = (h: number, m = 0) => Date.UTC(2026, 10, 21, h, m);

describe('hoursDue', () => {
  it('starts at the oldest result hour on the first pass and stops before the current hour', () => {
    expect(hoursDue(null, at(3, 25), at(9, 30))).toEqual({ from: at(3), to: at(9) });
  });

  it('never includes a partial hour', () => {
    // At 09:00:30 the 08:00 hour has just ended but is not yet settled.
    expect(hoursDue(at(8), at(1), at(9) + 30_000)).toBeNull();
    expect(hoursDue(at(8), at(1), at(9) + SETTLE_MS)).toEqual({ from: at(8), to: at(9) });
  });

  it('continues from the last pass, so a re-run finds nothing new', () => {
    expect(hoursDue(at(9), at(1), at(9, 59))).toBeNull();
    expect(hoursDue(at(7), at(1), at(9, 30))).toEqual({ from: at(7), to: at(9) });
  });

  it('waits for a probe still running or a result not yet written in an hour', () => {
    // A slow probe started at 07:59 keeps the 07:00 hour open, even at 09:30.
    expect(hoursDue(at(5), at(1), at(9, 30), at(7, 59))).toEqual({ from: at(5), to: at(7) });
    expect(hoursDue(at(7), at(1), at(9, 30), at(7, 59))).toBeNull();
  });

  it('has nothing to do without any result', () => {
    expect(hoursDue(null, null, at(9, 30))).toBeNull();
  });
});

describe('daysDue', () => {
  const day = (d: number) => Date.UTC(2026, 10, d);

  it('summarises only days whose every hour is summarised', () => {
    expect(daysDue(null, day(21) + 5 * HOUR_MS, day(18) + 7 * HOUR_MS)).toEqual({
      from: day(18),
      to: day(21),
    });
    expect(daysDue(day(21), day(21) + 23 * HOUR_MS, day(18))).toBeNull();
    expect(daysDue(day(20), day(22), day(18))).toEqual({ from: day(20), to: day(22) });
  });

  it('waits for the hourly tier', () => {
    expect(daysDue(null, null, null)).toBeNull();
  });
});

describe('splitSpan', () => {
  it('cuts a span into bounded pieces', () => {
    expect(splitSpan({ from: 0, to: 2.5 * DAY_MS }, DAY_MS)).toEqual([
      { from: 0, to: DAY_MS },
      { from: DAY_MS, to: 2 * DAY_MS },
      { from: 2 * DAY_MS, to: 2.5 * DAY_MS },
    ]);
  });
});

describe('pruneCutoffs', () => {
  const retention = { rawMs: 7 * DAY_MS, hourlyMs: 90 * DAY_MS };
  const now = at(12);

  it('prunes raw results and hourly buckets older than their retention', () => {
    expect(
      pruneCutoffs({ hourlyThrough: at(11), dailyThrough: Date.UTC(2026, 10, 21) }, retention, now),
    ).toEqual({
      raw: now - 7 * DAY_MS,
      hourly: now - 90 * DAY_MS,
    });
  });

  it('never prunes what has not been summarised yet', () => {
    const behind = { hourlyThrough: now - 10 * DAY_MS, dailyThrough: now - 100 * DAY_MS };
    expect(pruneCutoffs(behind, retention, now)).toEqual({
      raw: now - 10 * DAY_MS,
      hourly: now - 100 * DAY_MS,
    });
    expect(pruneCutoffs({ hourlyThrough: null, dailyThrough: null }, retention, now)).toEqual({
      raw: Number.NEGATIVE_INFINITY,
      hourly: Number.NEGATIVE_INFINITY,
    });
  });
});
