import {
  addSample,
  bucketStats,
  downtimeMs,
  emptyBucket,
  mergeBuckets,
  summarise,
  uptimeOf,
} from './rollup-bucket';

const ok = (latencyMs: number | null) => ({ success: true, latencyMs });
const fail = (latencyMs: number | null = null) => ({ success: false, latencyMs });

describe('rollup buckets', () => {
  it('count samples, successes and the latency of successes', () => {
    expect(summarise([ok(10), ok(30), fail(10_000), ok(20)])).toEqual({
      count: 4,
      up: 3,
      latencySum: 60,
      latencyMin: 10,
      latencyMax: 30,
    });
  });

  it('derive uptime and latency statistics', () => {
    expect(bucketStats(summarise([ok(10), ok(30), fail(), ok(20)]))).toEqual({
      uptime: 75,
      avgMs: 20,
      minMs: 10,
      maxMs: 30,
    });
  });

  it('give an empty bucket nulls, never zeros', () => {
    expect(bucketStats(emptyBucket())).toEqual({ uptime: null, avgMs: null, minMs: null, maxMs: null });
  });

  it('give a bucket of failures 0 % uptime and no latency', () => {
    expect(bucketStats(summarise([fail(5), fail(7)]))).toEqual({
      uptime: 0,
      avgMs: null,
      minMs: null,
      maxMs: null,
    });
  });

  it('merge into the same figures as summarising all samples at once', () => {
    const a = [ok(5), fail(), ok(50)];
    const b = [ok(1), ok(9)];
    expect(mergeBuckets(summarise(a), summarise(b))).toEqual(summarise([...a, ...b]));
    expect(mergeBuckets(emptyBucket(), summarise(b))).toEqual(summarise(b));
  });

  it('adding one sample equals summarising it', () => {
    expect(addSample(emptyBucket(), ok(4))).toEqual(summarise([ok(4)]));
  });

  it('leave gaps out of the uptime denominator', () => {
    // Two hours with samples (10 of 10, then 5 of 10) around an hour without any: 75 %, not 50 %.
    const full = summarise(Array.from({ length: 10 }, () => ok(1)));
    const half = summarise([
      ...Array.from({ length: 5 }, () => ok(1)),
      ...Array.from({ length: 5 }, () => fail()),
    ]);
    expect(uptimeOf([full, emptyBucket(), half]).uptime).toBe(75);
    expect(uptimeOf([]).uptime).toBeNull();
  });

  it('round uptime to four decimals', () => {
    expect(bucketStats(summarise([ok(1), ok(1), fail()])).uptime).toBe(66.6667);
  });
});

describe('downtimeMs', () => {
  it('counts only the part of each outage inside the window, an open one until its end', () => {
    const outages = [
      { startedAt: 0, resolvedAt: 150 }, // 100..150 inside
      { startedAt: 300, resolvedAt: 400 },
      { startedAt: 900, resolvedAt: null }, // open: 900..1000
      { startedAt: 10, resolvedAt: 50 }, // before the window
    ];
    expect(downtimeMs(outages, 100, 1000)).toBe(50 + 100 + 100);
  });
});
