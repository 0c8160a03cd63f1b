const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Plausible rollup buckets of `days` days for each sensor, latencies with two decimals and a
 * failure now and then: hourly up to `hourlyThrough`, daily up to `dailyThrough` (none when null).
 */
export function fillRollups(db, ids, days, hourlyThrough, dailyThrough = null) {
  const hourly = db.prepare(
    'INSERT INTO rollup_hourly (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max) VALUES (?, ?, 60, ?, ?, ?, ?)',
  );
  const daily = db.prepare(
    'INSERT INTO rollup_daily (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max) VALUES (?, ?, 1440, ?, ?, ?, ?)',
  );
  const fill = db.transaction((id, i) => {
    for (let hour = hourlyThrough - days * DAY; hour < hourlyThrough; hour += HOUR) {
      const h = (Math.imul(i + 1, 2654435761) ^ Math.imul(hour / HOUR, 40503)) >>> 0;
      const up = 60 - (h % 97 === 0 ? 3 : 0);
      const avg = 20 + (h % 6000) / 100;
      hourly.run(
        id,
        hour,
        up,
        Math.round(up * avg * 100) / 100,
        Math.round(avg * 40) / 100,
        Math.round(avg * 300) / 100,
      );
    }
    if (dailyThrough === null) return;
    for (let day = dailyThrough - days * DAY; day < dailyThrough; day += DAY) {
      const h = (Math.imul(i + 7, 2654435761) ^ Math.imul(day / DAY, 40503)) >>> 0;
      const up = 1440 - (h % 7 === 0 ? 3 : 0);
      const avg = 20 + (h % 6000) / 100;
      daily.run(
        id,
        day,
        up,
        Math.round(up * avg * 100) / 100,
        Math.round(avg * 30) / 100,
        Math.round(avg * 500) / 100,
      );
    }
  });
  ids.forEach((id, i) => fill(id, i));
}
