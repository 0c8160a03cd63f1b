// Disk-full benchmark (issues 13 and 25, needs root to mount a tmpfs): N http sensors at 1 s with
// the data directory on a small tmpfs, which is then filled for S seconds; then only `freed` bytes
// (2 MiB) are given back. Reports, while full: answers to POST /api/sensors, error log lines,
// /healthz status and latency (p50/p99); after freeing: how long until the first result is stored
// and until /healthz is 200, whether storing then stays resumed for `after` seconds (no new
// `storage full` line), and the write-ahead log's peak size before the fill and after freeing.
// BENCH_MAIN=<path to main.js> runs another build (e.g. the commit before a change).
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { percentile, startBenchServer } from './support/server.mjs';
import { startTarget } from './support/target.mjs';

const PASSWORD = 'bench password 12345';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function fill(file) {
  const fd = openSync(file, 'w');
  for (const size of [1 << 20, 1 << 12, 512]) {
    const chunk = Buffer.alloc(size, 1);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (error) {
      if (error.code !== 'ENOSPC') throw error;
    }
  }
  closeSync(fd);
}

async function timedGet(url) {
  const started = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

/** Samples the size of the write-ahead log every 50 ms; `peak()` since the last `reset()`. */
function walWatch(file) {
  let peak = 0;
  const timer = setInterval(() => {
    if (existsSync(file)) peak = Math.max(peak, statSync(file).size);
  }, 50);
  return {
    peak: () => peak,
    reset: () => (peak = 0),
    stop: () => clearInterval(timer),
  };
}

export async function run({ sensors = 300, seconds = 15, freed = 2 << 20, after = 30, warm = 30 } = {}) {
  if (process.getuid?.() !== 0) {
    console.log('disk-full: skipped (needs root: mounts a tmpfs)');
    return { skipped: 'needs root' };
  }
  const mountPoint = mkdtempSync(join(tmpdir(), 'monitor-bench-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', mountPoint]);
  const target = await startTarget();
  let server;
  let wal;
  try {
    server = await startBenchServer({
      env: { MONITOR_ADMIN_PASSWORD: PASSWORD },
      dataDir: join(mountPoint, 'data'),
      ...(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {}),
    });
    wal = walWatch(join(server.dataDir, 'monitor.db-wal'));
    const headers = await apiKeyFor(server.url, PASSWORD);
    await createSensors(
      server.url,
      headers,
      Array.from({ length: sensors }, (_, i) => ({
        name: `full-${i}`,
        type: 'http',
        target: `${target.url}/s/${i}`,
        interval: 1,
      })),
    );
    wal.reset();
    await sleep(warm * 1000);
    const walPeakRunning = wal.peak();

    const filler = join(mountPoint, 'filler');
    fill(filler);
    const linesBefore = server.lines.length;
    const fullSince = Date.now();
    const creates = {};
    const health = [];
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      const res = await fetch(`${server.url}/api/sensors`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'while full', type: 'http', target: `${target.url}/x` }),
      });
      await res.arrayBuffer();
      creates[res.status] = (creates[res.status] ?? 0) + 1;
      for (let i = 0; i < 10; i++) {
        health.push(await timedGet(`${server.url}/healthz`));
        await sleep(100);
      }
    }
    const spellLines = server.lines.slice(linesBefore).map((line) => JSON.parse(line));
    const errorLines = spellLines.filter((l) => l.level === 'error' && l.msg !== 'http request failed');

    const db = new Database(join(server.dataDir, 'monitor.db'), { readonly: true });
    const count = (from, to) =>
      db.prepare('SELECT count(*) AS n FROM probe_results WHERE ts BETWEEN ? AND ?').get(from, to).n;
    const total = () => db.prepare('SELECT count(*) AS n FROM probe_results').get().n;
    const storedBefore = total();

    truncateSync(filler, statSync(filler).size - freed);
    wal.reset();
    const freedAt = Date.now();
    const freedNow = performance.now();
    let healthyMs;
    let firstStoredMs;
    while (
      (healthyMs === undefined || firstStoredMs === undefined) &&
      performance.now() - freedNow < 60_000
    ) {
      if (firstStoredMs === undefined && total() > storedBefore) firstStoredMs = performance.now() - freedNow;
      if (healthyMs === undefined && (await timedGet(`${server.url}/healthz`)).status === 200)
        healthyMs = performance.now() - freedNow;
      await sleep(20);
    }
    // Every sensor probed once a second: the spell's results are stored when each has about `seconds`.
    let storedMs;
    while (storedMs === undefined && performance.now() - freedNow < 60_000) {
      if (count(fullSince, freedAt) >= sensors * (seconds - 2)) storedMs = performance.now() - freedNow;
      else await sleep(100);
    }
    const spellStored = count(fullSince, freedAt);
    // Stays resumed: results keep arriving and no new spell starts for `after` seconds.
    const watchFrom = Date.now();
    const linesAtRecovery = server.lines.length;
    await sleep(after * 1000);
    const storedWhileWatched = count(watchFrom, Date.now());
    const newSpells = server.lines
      .slice(linesAtRecovery)
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'storage full').length;
    const finalHealth = (await timedGet(`${server.url}/healthz`)).status;
    db.close();
    const recovered = server.lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'storage recovered');

    const ms = health.map((h) => h.ms);
    const result = {
      sensors,
      full_s: seconds,
      freed_bytes: freed,
      wal_peak_bytes_running: walPeakRunning,
      wal_peak_bytes_after_freeing: wal.peak(),
      create_answers_while_full: creates,
      error_lines_while_full: errorLines.length,
      error_messages: [...new Set(errorLines.map((l) => l.msg))],
      healthz_while_full: {
        statuses: [...new Set(health.map((h) => h.status))],
        p50_ms: Math.round(percentile(ms, 50) * 10) / 10,
        p99_ms: Math.round(percentile(ms, 99) * 10) / 10,
      },
      first_result_stored_after_freeing_ms: firstStoredMs === undefined ? null : Math.round(firstStoredMs),
      healthz_200_after_freeing_ms: healthyMs === undefined ? null : Math.round(healthyMs),
      spell_results_stored: spellStored,
      spell_results_stored_after_ms: storedMs === undefined ? null : Math.round(storedMs),
      [`stored_in_${after}_s_after`]: storedWhileWatched,
      [`new_full_spells_in_${after}_s_after`]: newSpells,
      healthz_at_end: finalHealth,
      recovered_line: recovered ?? null,
    };
    console.log(`disk-full: ${JSON.stringify(result)}`);
    return result;
  } finally {
    wal?.stop();
    await server?.stop();
    await target.close();
    execFileSync('umount', ['-l', mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
