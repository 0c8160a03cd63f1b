// Disk-full benchmark (issue 13, needs root to mount a 16 MiB tmpfs): N http sensors at 1 s with
// the data directory on a small tmpfs, which is then filled for S seconds and freed again.
// Reports, while full: answers to POST /api/sensors, error log lines, /healthz status and latency
// (p50/p99); after freeing: how long until /healthz is 200 again and until every result of the
// spell is stored, and the `storage recovered` line.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
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

export async function run({ sensors = 200, seconds = 30 } = {}) {
  if (process.getuid?.() !== 0) {
    console.log('disk-full: skipped (needs root: mounts a 16 MiB tmpfs)');
    return { skipped: 'needs root' };
  }
  const mountPoint = mkdtempSync(join(tmpdir(), 'monitor-bench-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint]);
  const target = await startTarget();
  let server;
  try {
    server = await startBenchServer({
      env: { MONITOR_ADMIN_PASSWORD: PASSWORD },
      dataDir: join(mountPoint, 'data'),
    });
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
    await sleep(7000);

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

    rmSync(filler);
    const freedAt = Date.now();
    const freed = performance.now();
    let healthyMs;
    while (healthyMs === undefined && performance.now() - freed < 60_000) {
      if ((await timedGet(`${server.url}/healthz`)).status === 200) healthyMs = performance.now() - freed;
      else await sleep(50);
    }
    // Every sensor probed once a second: the spell's results are stored when each has about `seconds`.
    const db = new Database(join(server.dataDir, 'monitor.db'), { readonly: true });
    const count = () =>
      db.prepare('SELECT count(*) AS n FROM probe_results WHERE ts BETWEEN ? AND ?').get(fullSince, freedAt)
        .n;
    let storedMs;
    while (storedMs === undefined && performance.now() - freed < 60_000) {
      if (count() >= sensors * (seconds - 2)) storedMs = performance.now() - freed;
      else await sleep(100);
    }
    const stored = count();
    db.close();
    const recovered = server.lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'storage recovered');

    const ms = health.map((h) => h.ms);
    const result = {
      sensors,
      full_s: seconds,
      create_answers_while_full: creates,
      error_lines_while_full: errorLines.length,
      error_messages: [...new Set(errorLines.map((l) => l.msg))],
      healthz_while_full: {
        statuses: [...new Set(health.map((h) => h.status))],
        p50_ms: Math.round(percentile(ms, 50) * 10) / 10,
        p99_ms: Math.round(percentile(ms, 99) * 10) / 10,
      },
      healthz_200_after_freeing_ms: healthyMs === undefined ? null : Math.round(healthyMs),
      spell_results_stored: stored,
      spell_results_stored_after_ms: storedMs === undefined ? null : Math.round(storedMs),
      recovered_line: recovered ?? null,
    };
    console.log(`disk-full: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await server?.stop();
    await target.close();
    execFileSync('umount', ['-l', mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
