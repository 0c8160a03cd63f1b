// Backup benchmark: 1,000 http sensors with 90 days of hourly and daily rollups (2.16 million
// hourly buckets, written straight into the database as bench/history.mjs does). Measures the
// history backup (time, document size, server RSS) and restoring that document into the same
// installation and into a fresh one (time, server RSS), with RSS sampled every 50 ms.
import { createRequire } from 'node:module';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { startBenchServer } from './support/server.mjs';
import { apiKeyFor, createSensors, restoreFile } from './support/api.mjs';
import { rssMiB } from './support/proc.mjs';
import { fillRollups } from './support/rollups.mjs';
import { startTarget } from './support/target.mjs';

const Database = createRequire(import.meta.url)('better-sqlite3');

const PASSWORD = 'bench password 12345';
const SENSORS = 1000;
const DAYS = 90;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, places = 1) => Math.round(value * 10 ** places) / 10 ** places;

/** Samples a process's RSS every 50 ms while `work` runs; answers its result, the time and the peak. */
async function measured(pid, work) {
  let peak = rssMiB(pid);
  const before = peak;
  const timer = setInterval(() => {
    const rss = rssMiB(pid);
    if (rss > peak) peak = rss;
  }, 50);
  const started = performance.now();
  try {
    const result = await work();
    return {
      result,
      ms: Math.round(performance.now() - started),
      rss_before_mib: round(before),
      peak_rss_mib: round(peak),
    };
  } finally {
    clearInterval(timer);
  }
}

/** Streams the history backup to a file; answers its size in bytes. */
async function backup(url, headers, file) {
  const res = await fetch(`${url}/api/backup?scope=history&days=90`, { headers });
  if (res.status !== 200) throw new Error(`backup answered ${res.status}: ${await res.text()}`);
  await pipeline(Readable.fromWeb(res.body), createWriteStream(file));
  return statSync(file).size;
}

const fromLog = (server, msg) =>
  server.lines
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return {};
      }
    })
    .filter((l) => l.msg === msg);

const pickTimes = (line) =>
  line && {
    check: line.check_ms,
    safety_copy: line.safety_copy_ms,
    write: line.write_ms,
    reconcile: line.reconcile_ms,
    total: line.duration_ms,
  };

export async function run() {
  const target = await startTarget();
  const env = { MONITOR_ADMIN_PASSWORD: PASSWORD };
  const work = mkdtempSync(join(tmpdir(), 'monitor-bench-backup-'));
  const documentFile = join(work, 'backup.json');
  let server = await startBenchServer({ env });
  let fresh;
  try {
    // 1. Sensors through the API, then stop and write 90 days of rollups straight into the database.
    let headers = await apiKeyFor(server.url, PASSWORD);
    const ids = await createSensors(
      server.url,
      headers,
      Array.from({ length: SENSORS }, (_, i) => ({
        name: `bench-${i}`,
        type: 'http',
        target: `${target.url}/s/${i}`,
        interval: 60,
        options: { timeout: 10 },
      })),
    );
    await server.stop({ keepData: true });
    const db = new Database(join(server.dataDir, 'monitor.db'));
    db.pragma('journal_mode = WAL');
    const now = Date.now();
    const hourlyThrough = Math.floor(now / HOUR) * HOUR;
    const dailyThrough = Math.floor(now / DAY) * DAY;
    fillRollups(db, ids, DAYS, hourlyThrough, dailyThrough);
    const set = db.prepare('INSERT OR REPLACE INTO settings (key, value, updated_at) VALUES (?, ?, ?)');
    set.run('history.hourly_through', JSON.stringify(hourlyThrough), now);
    set.run('history.daily_through', JSON.stringify(dailyThrough), now);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const hourlyBuckets = db.prepare('SELECT count(*) AS n FROM rollup_hourly').get().n;
    const dailyBuckets = db.prepare('SELECT count(*) AS n FROM rollup_daily').get().n;
    db.close();
    console.log(
      `backup: ${SENSORS} sensors, ${hourlyBuckets} hourly and ${dailyBuckets} daily buckets written`,
    );

    // 2. The backup, with every sensor probing meanwhile.
    server = await startBenchServer({ env, dataDir: server.dataDir });
    headers = await apiKeyFor(server.url, PASSWORD);
    await sleep(2000);
    const down = await measured(server.child.pid, () => backup(server.url, headers, documentFile));
    const bytes = down.result;
    console.log(`backup: ${round(bytes / 1048576)} MiB in ${down.ms} ms, peak RSS ${down.peak_rss_mib} MiB`);

    // 3. Restore into the same installation (every sensor matched by name, its rollups replaced).
    const same = await measured(server.child.pid, () => restoreFile(server.url, headers, documentFile));
    console.log(`restore (same installation): ${same.ms} ms, peak RSS ${same.peak_rss_mib} MiB`);
    const sameLog = fromLog(server, 'restore').at(-1);

    // 4. Restore into a fresh installation (every sensor created).
    fresh = await startBenchServer({ env });
    const freshHeaders = await apiKeyFor(fresh.url, PASSWORD);
    await sleep(1000);
    const into = await measured(fresh.child.pid, () => restoreFile(fresh.url, freshHeaders, documentFile));
    console.log(`restore (fresh installation): ${into.ms} ms, peak RSS ${into.peak_rss_mib} MiB`);
    const freshLog = fromLog(fresh, 'restore').at(-1);
    // The restored API key is the one from the document.
    const check = await fetch(`${fresh.url}/api/sensors`, { headers });
    const restoredSensors = (await check.json()).length;

    return {
      sensors: SENSORS,
      hourly_buckets: hourlyBuckets,
      daily_buckets: dailyBuckets,
      backup: {
        ms: down.ms,
        document_mib: round(bytes / 1048576),
        bytes_per_hourly_bucket: round(bytes / hourlyBuckets, 1),
        rss_before_mib: down.rss_before_mib,
        peak_rss_mib: down.peak_rss_mib,
      },
      restore_same: {
        ms: same.ms,
        server_ms: pickTimes(sameLog),
        rss_before_mib: same.rss_before_mib,
        peak_rss_mib: same.peak_rss_mib,
        counts: same.result.counts,
      },
      restore_fresh: {
        ms: into.ms,
        server_ms: pickTimes(freshLog),
        rss_before_mib: into.rss_before_mib,
        peak_rss_mib: into.peak_rss_mib,
        sensors_after: restoredSensors,
        counts: into.result.counts,
      },
    };
  } finally {
    await server.stop();
    await fresh?.stop();
    await target.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(), null, 2));
