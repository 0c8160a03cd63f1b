const HOUR = 3_600_000;
const DAY = 24 * HOUR;

// Per tier: bucket length, samples per bucket, how often a bucket has failures, min/max spread.
const TIERS = {
  hourly: { step: HOUR, count: 60, salt: 1, failEvery: 97, minFactor: 40, maxFactor: 300 },
  daily: { step: DAY, count: 1440, salt: 7, failEvery: 7, minFactor: 30, maxFactor: 500 },
};

/**
 * Plausible rollup buckets of `days` days for each sensor, latencies with two decimals and a
 * failure now and then: hourly up to `hourlyThrough`, daily up to `dailyThrough` (none when null).
 */
export function fillRollups(db, ids, days, hourlyThrough, dailyThrough = null) {
  const tiers = [['hourly', hourlyThrough]];
  if (dailyThrough !== null) tiers.push(['daily', dailyThrough]);
  const inserts = tiers.map(([name, through]) => {
    const t = TIERS[name];
    const insert = db.prepare(
      `INSERT INTO rollup_${name} (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max) VALUES (?, ?, ${t.count}, ?, ?, ?, ?)`,
    );
    return (id, i) => {
      for (let start = through - days * DAY; start < through; start += t.step) {
        const h = (Math.imul(i + t.salt, 2654435761) ^ Math.imul(start / t.step, 40503)) >>> 0;
        const up = t.count - (h % t.failEvery === 0 ? 3 : 0);
        const avg = 20 + (h % 6000) / 100;
        const latency = (factor) => Math.round(avg * factor) / 100;
        insert.run(
          id,
          start,
          up,
          Math.round(up * avg * 100) / 100,
          latency(t.minFactor),
          latency(t.maxFactor),
        );
      }
    };
  });
  const fill = db.transaction((id, i) => inserts.forEach((insertFor) => insertFor(id, i)));
  ids.forEach((id, i) => fill(id, i));
}
