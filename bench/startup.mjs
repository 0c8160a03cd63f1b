// Cold start to a ready /healthz on an empty data directory, and idle RSS after start.
// Targets (issue 2): start under 1.5 s, idle RSS under 150 MiB.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const IDLE_MS = 3000;

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const rssMiB = (pid) => {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
};

async function once() {
  const dataDir = mkdtempSync(join(tmpdir(), 'monitor-bench-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['dist/apps/monitor/main.js', 'serve', '--listen', `127.0.0.1:${port}`, '--data-dir', dataDir],
    {
      env: { ...process.env, PUID: '0', MALLOC_ARENA_MAX: '2', NODE_OPTIONS: '--max-semi-space-size=2' },
      stdio: 'ignore',
    },
  );
  let readyMs = NaN;
  while (performance.now() - started < 15_000) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) {
        readyMs = performance.now() - started;
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const rss = rssMiB(child.pid);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.on('close', resolve));
  rmSync(dataDir, { recursive: true, force: true });
  return { readyMs, rss };
}

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

export async function run() {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once());
  const ready = runs.map((r) => r.readyMs);
  const rss = runs.map((r) => r.rss);
  const result = {
    runs: RUNS,
    cold_start_ms: { p50: pct(ready, 50), p90: pct(ready, 90), max: Math.max(...ready), target: 1500 },
    idle_rss_mib: { p50: pct(rss, 50), max: Math.max(...rss), target: 150 },
  };
  console.log(
    `startup: cold start to ready /healthz p50 ${result.cold_start_ms.p50.toFixed(0)} ms, p90 ${result.cold_start_ms.p90.toFixed(0)} ms, ` +
      `max ${result.cold_start_ms.max.toFixed(0)} ms (target < 1500); idle RSS p50 ${result.idle_rss_mib.p50.toFixed(1)} MiB, ` +
      `max ${result.idle_rss_mib.max.toFixed(1)} MiB (target < 150) over ${RUNS} runs`,
  );
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
