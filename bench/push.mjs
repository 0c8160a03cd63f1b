// Push sensors benchmark (issue 18): 1,000 push sensors on one instance, pushed by a load generator
// in its own process (support/load.mjs), every request to the next token in turn (each token stays
// under its 10/s limit while the whole load stays under 10,000/s). Twice: as fast as it goes
// (closed loop, 100 connections) and at an offered 1,000 evenly spaced pushes a second. Beside them, 200 http sensors probing a local target
// every 10 s: their start lag shows what the pushes cost the schedule.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crowd } from './support/crowd.mjs';
import { startBenchServer } from './support/server.mjs';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { cpuMs, rssMiB } from './support/proc.mjs';
import { startTarget } from './support/target.mjs';
import { lagStats } from './scheduler.mjs';

const PASSWORD = 'bench password 12345';
const PUSH_SENSORS = Number(process.env.BENCH_PUSH_SENSORS ?? 1000);
const HTTP_SENSORS = 200;
const INTERVAL_S = 10;
const CONNECTIONS = 100;
const LOAD_S = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, places = 1) => Math.round(value * 10 ** places) / 10 ** places;

/** Creates the push sensors; answers their tokens (shown once, in the create answer). */
async function createPushSensors(url, headers, count, concurrency = 8) {
  const tokens = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const res = await fetch(`${url}/api/sensors`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `push-${index}`, type: 'push', target: '', interval: 300 }),
      });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      tokens[index] = (await res.json()).options.token;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return tokens;
}

export async function run() {
  const target = await startTarget();
  const server = await startBenchServer({ env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
  const dir = mkdtempSync(join(tmpdir(), 'monitor-push-bench-'));
  try {
    const headers = await apiKeyFor(server.url, PASSWORD);
    const tokens = await createPushSensors(server.url, headers, PUSH_SENSORS);
    const pathsFile = join(dir, 'paths');
    writeFileSync(pathsFile, tokens.map((token) => `/api/push/${token}?status=up&latency_ms=12\n`).join(''));
    await createSensors(
      server.url,
      headers,
      Array.from({ length: HTTP_SENSORS }, (_, i) => ({
        name: `http-${i}`,
        type: 'http',
        target: `${target.url}/s/${i}`,
        interval: INTERVAL_S,
        options: { timeout: 5 },
      })),
    );
    // Every http loop has made its first probe before the lag is measured.
    await sleep(INTERVAL_S * 1000 + 2000);
    const pid = server.child.pid;
    const measure = async (rate) => {
      const since = performance.now();
      const cpu0 = cpuMs(pid);
      const result = await crowd({
        url: server.url,
        connections: CONNECTIONS,
        seconds: LOAD_S,
        rate,
        paths: pathsFile,
      });
      const cpu = cpuMs(pid) - cpu0;
      await sleep(INTERVAL_S * 1000);
      const lag = lagStats(target.arrivals, INTERVAL_S * 1000, since);
      return {
        ...result,
        server_cpu_per_request_ms: round(cpu / result.total, 3),
        probe_lag_ms: { p50: round(lag.p50), p99: round(lag.p99), max: round(lag.max), missed: lag.missed },
        rss_mib: rssMiB(pid),
      };
    };
    const saturated = await measure();
    const at1000 = await measure(1000);
    const check = await fetch(`${server.url}/api/sensors`, { headers });
    const up = (await check.json()).filter((s) => s.type === 'push' && s.status === 'up').length;
    return {
      push_sensors: PUSH_SENSORS,
      http_sensors: HTTP_SENSORS,
      interval_s: INTERVAL_S,
      connections: CONNECTIONS,
      load_s: LOAD_S,
      saturated,
      at_1000: at1000,
      push_sensors_up: up,
    };
  } finally {
    await server.stop();
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function describe(r) {
  const one = (name, x) =>
    `  ${name}: ${x.requests_per_s} pushes/s, latency p50 ${x.latency_ms.p50} / p99 ${x.latency_ms.p99} ms, ` +
    `${x.non_2xx} non-2xx, ${x.errors} errors; probe lag p50 ${x.probe_lag_ms.p50} / p99 ${x.probe_lag_ms.p99} ms, ` +
    `${x.probe_lag_ms.missed} missed; ${x.server_cpu_per_request_ms} ms CPU per push; ${x.rss_mib} MiB RSS`;
  return [
    `push: ${r.push_sensors} push sensors (+${r.http_sensors} http @ ${r.interval_s} s), ${r.connections} connections × ${r.load_s} s`,
    one('saturated', r.saturated),
    one('at 1,000/s', r.at_1000),
    `  push sensors up afterwards: ${r.push_sensors_up} of ${r.push_sensors}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run();
  console.log(describe(result));
  console.log(JSON.stringify(result));
}
