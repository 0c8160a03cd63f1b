// Starts the built server on a free loopback port with an empty data directory.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function startBenchServer({
  env = {},
  nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [],
  dataDir = mkdtempSync(join(tmpdir(), 'monitor-bench-')),
  // Another build to compare against (e.g. one of the commit before a change; BENCH_MAIN for all).
  main = process.env.BENCH_MAIN ?? 'dist/apps/monitor/main.js',
  // More serve flags (e.g. --config <file>).
  args = [],
} = {}) {
  const child = spawn(
    process.execPath,
    [...nodeArgs, main, 'serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir, ...args],
    // The same memory settings as `npm start` and the container image.
    {
      env: {
        ...process.env,
        PUID: '0',
        MALLOC_ARENA_MAX: '2',
        // BENCH_NODE_OPTIONS compares other V8 settings.
        NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? '--max-semi-space-size=2',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  /** Every complete stdout line (the JSON log). */
  const lines = [];
  let partial = '';
  child.stdout.on('data', (chunk) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop();
    lines.push(...parts.filter(Boolean));
  });
  const stderrLines = [];
  child.stderr.on('data', (chunk) => stderrLines.push(...chunk.toString().split('\n').filter(Boolean)));
  const url = await new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${stdout}`)));
    // Only until the server listens: the request log that follows grows by megabytes, and splitting
    // all of it again at every chunk once made the bench's own target too busy to answer in time.
    const untilListening = (chunk) => {
      stdout += chunk;
      const line = stdout.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (!line) return;
      child.stdout.off('data', untilListening);
      resolve(JSON.parse(line).url);
    };
    child.stdout.on('data', untilListening);
  });
  let stopped = false;
  return {
    url,
    child,
    dataDir,
    lines,
    stderrLines,
    /** SIGTERM and wait; the data directory is removed unless keepData. */
    async stop({ keepData = false } = {}) {
      if (!stopped) {
        stopped = true;
        child.kill('SIGTERM');
        await new Promise((resolve) => child.on('close', resolve));
      }
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
