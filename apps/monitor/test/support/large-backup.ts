import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION } from '@monitor/contracts';
import Database from 'better-sqlite3';
import { SCHEMA_VERSION } from '../../src/backup/backup-format';

const HOUR = 3_600_000;
const START = Date.parse('2026-01-01T00:00:00Z');
export const SENSORS = 200;
const BLOCKS = 3;
const BLOCK = 744;

/** A history document of SENSORS sensors with BLOCKS × BLOCK hourly buckets each (446,400). */
export function largeDocument(): { text: string; buckets: number; lastBucket: number } {
  const parts: string[] = [
    JSON.stringify({
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      schema_version: SCHEMA_VERSION,
      created_at: new Date(START).toISOString(),
      scope: 'history',
      days: 'all',
    }).slice(0, -1),
  ];
  const sensors = Array.from({ length: SENSORS }, (_, i) => ({
    name: `stall-${i}`,
    type: 'tcp',
    target: `127.0.0.1:${1000 + i}`,
    interval: 60,
    enabled: false,
  }));
  parts.push(`,"sensors":${JSON.stringify(sensors)},"rollup_hourly":[`);
  let first = true;
  let lastBucket = 0;
  for (let s = 0; s < SENSORS; s++)
    for (let b = 0; b < BLOCKS; b++) {
      const start = START + b * BLOCK * HOUR;
      const up: number[] = [];
      const sum: number[] = [];
      const min: number[] = [];
      const max: number[] = [];
      for (let i = 0; i < BLOCK; i++) {
        const h = (s * 7919 + b * 104729 + i * 31) % 1000;
        up.push(60 - (h % 97 === 0 ? 2 : 0));
        sum.push(1200 + h / 100);
        min.push(10 + (h % 50) / 100);
        max.push(40 + (h % 70) / 100);
      }
      lastBucket = start + (BLOCK - 1) * HOUR;
      const block = { sensor: `stall-${s}`, start: new Date(start).toISOString(), step: 3600, n: BLOCK };
      parts.push(
        `${first ? '' : ','}\n${JSON.stringify({ ...block, count: 60, up, latency_sum: sum, latency_min: min, latency_max: max })}`,
      );
      first = false;
    }
  parts.push('\n]}\n');
  return { text: parts.join(''), buckets: SENSORS * BLOCKS * BLOCK, lastBucket };
}

/**
 * While `settled()` is false, watches the database file for a held write lock (the restore's
 * transaction) from a connection of its own, and asks `/healthz` each time it sees one: counts
 * how often the lock was seen and how often the server answered 200 while still restoring.
 */
export async function healthWhileWriteLocked(
  databaseFile: string,
  settled: () => boolean,
  healthStatus: () => Promise<number>,
): Promise<{ writing: number; answeredWhileWriting: number }> {
  const probe = new Database(databaseFile);
  probe.pragma('busy_timeout = 0');
  let writing = 0;
  let answeredWhileWriting = 0;
  try {
    while (!settled()) {
      try {
        probe.exec('BEGIN IMMEDIATE');
        probe.exec('ROLLBACK');
        await new Promise((resolve) => setTimeout(resolve, 2));
        continue;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      }
      writing++;
      if ((await healthStatus()) === 200 && !settled()) answeredWhileWriting++;
    }
  } finally {
    probe.close();
  }
  return { writing, answeredWhileWriting };
}
