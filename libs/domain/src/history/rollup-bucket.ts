/**
 * A rollup bucket: enough to derive uptime and latency statistics. Latency figures cover the
 * successful samples (a failed probe's time is a time-out or a refusal, not the service's speed),
 * so the average is latencySum / up.
 */
export interface Bucket {
  count: number;
  up: number;
  latencySum: number;
  latencyMin: number | null;
  latencyMax: number | null;
}

export interface Sample {
  success: boolean;
  latencyMs: number | null;
}

export const emptyBucket = (): Bucket => ({
  count: 0,
  up: 0,
  latencySum: 0,
  latencyMin: null,
  latencyMax: null,
});

const lower = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
const higher = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

export function addSample(bucket: Bucket, sample: Sample): Bucket {
  const latency = sample.success ? sample.latencyMs : null;
  return {
    count: bucket.count + 1,
    up: bucket.up + (sample.success ? 1 : 0),
    latencySum: bucket.latencySum + (latency ?? 0),
    latencyMin: lower(bucket.latencyMin, latency),
    latencyMax: higher(bucket.latencyMax, latency),
  };
}

export function mergeBuckets(a: Bucket, b: Bucket): Bucket {
  return {
    count: a.count + b.count,
    up: a.up + b.up,
    latencySum: a.latencySum + b.latencySum,
    latencyMin: lower(a.latencyMin, b.latencyMin),
    latencyMax: higher(a.latencyMax, b.latencyMax),
  };
}

export const summarise = (samples: Iterable<Sample>): Bucket => {
  let bucket = emptyBucket();
  for (const sample of samples) bucket = addSample(bucket, sample);
  return bucket;
};

export interface BucketStats {
  /** Percentage 0–100; null for an empty bucket (a gap is never 0 %). */
  uptime: number | null;
  avgMs: number | null;
  minMs: number | null;
  maxMs: number | null;
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

export function bucketStats(bucket: Bucket): BucketStats {
  if (bucket.count === 0) return { uptime: null, avgMs: null, minMs: null, maxMs: null };
  return {
    uptime: round((bucket.up / bucket.count) * 100, 4),
    avgMs: bucket.up > 0 && bucket.latencyMin !== null ? round(bucket.latencySum / bucket.up, 3) : null,
    minMs: bucket.latencyMin,
    maxMs: bucket.latencyMax,
  };
}

/** Uptime over several buckets: gaps add nothing to either side of the fraction. */
export const uptimeOf = (buckets: Iterable<Bucket>): BucketStats => {
  let total = emptyBucket();
  for (const bucket of buckets) total = mergeBuckets(total, bucket);
  return bucketStats(total);
};

export interface Outage {
  startedAt: number;
  resolvedAt: number | null;
}

/** Milliseconds of [from, to) covered by outages; an open outage lasts until `to`. */
export function downtimeMs(outages: Iterable<Outage>, from: number, to: number): number {
  let total = 0;
  for (const outage of outages) {
    const start = Math.max(outage.startedAt, from);
    const end = Math.min(outage.resolvedAt ?? to, to);
    if (end > start) total += end - start;
  }
  return total;
}
