// Scheduler benchmark (issue 4): N http sensors at an interval against a local keep-alive target,
// timing each probe's arrival at the target. Reports start lag p99 (|gap between two probes of
// one sensor − interval|), CPU per probe, RSS, bytes written to storage per probe, missed cycles;
// the time to create the sensors through the API; and, after a restart, how long until every
// sensor has been probed again.
import { percentile, startBenchServer } from './support/server.mjs';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { cpuMs, rssMiB, writtenBytes } from './support/proc.mjs';
import { startTarget } from './support/target.mjs';
import {
  backendEnv,
  benchBackend,
  resultsFootprint,
  serverCpuMs,
  serverWrittenBytes,
  stopBackend,
} from './support/pg-backend.mjs';

const PASSWORD = 'bench password 12345';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function lagStats(arrivals, intervalMs, since) {
  const lags = [];
  let missed = 0;
  let probes = 0;
  for (const times of arrivals.values()) {
    const window = times.filter((t) => t >= since);
    probes += window.length;
    for (let i = 1; i < window.length; i++) {
      const gap = window[i] - window[i - 1];
      lags.push(Math.abs(gap - intervalMs));
      if (gap > intervalMs * 1.5) missed += Math.round(gap / intervalMs) - 1;
    }
  }
  return { p50: percentile(lags, 50), p99: percentile(lags, 99), max: Math.max(...lags), missed, probes };
}

export async function runScenario({ sensors, interval, seconds, restart = false, keepDataDir } = {}) {
  const target = await startTarget();
  // On PostgreSQL (BENCH_BACKEND=postgres) the server gets a fresh database, kept across the restart.
  const env = { MONITOR_ADMIN_PASSWORD: PASSWORD, ...(await backendEnv()) };
  const databaseUrl = env.MONITOR_DATABASE_URL;
  let server = await startBenchServer({ env, keepDataDir });
  try {
    const headers = await apiKeyFor(server.url, PASSWORD);
    const bodies = Array.from({ length: sensors }, (_, i) => ({
      name: `bench-${i}`,
      type: 'http',
      target: `${target.url}/s/${i}`,
      interval,
      options: { timeout: Math.min(10, interval) },
    }));
    const createStarted = performance.now();
    await createSensors(server.url, headers, bodies);
    const createMs = performance.now() - createStarted;

    // Let every loop make its first probe (random offsets within one interval), then measure.
    await sleep(interval * 1000 + 2000);
    const pid = server.child.pid;
    const since = performance.now();
    const cpu0 = cpuMs(pid);
    const disk0 = writtenBytes(pid);
    const serverCpu0 = serverCpuMs();
    const serverDisk0 = serverWrittenBytes();
    const footprint0 = databaseUrl ? await resultsFootprint(databaseUrl) : null;
    let peakRss = 0;
    const deadline = since + seconds * 1000;
    while (performance.now() < deadline) {
      await sleep(1000);
      peakRss = Math.max(peakRss, rssMiB(pid));
    }
    const lag = lagStats(target.arrivals, interval * 1000, since);
    const result = {
      backend: benchBackend(),
      sensors,
      interval_s: interval,
      measured_s: seconds,
      create_ms: Math.round(createMs),
      probes: lag.probes,
      lag_ms: { p50: round(lag.p50), p99: round(lag.p99), max: round(lag.max) },
      missed_cycles: lag.missed,
      cpu_ms_per_probe: round((cpuMs(pid) - cpu0) / lag.probes, 3),
      rss_mib_peak: round(peakRss),
      disk_bytes_per_probe: Math.round((writtenBytes(pid) - disk0) / lag.probes),
    };
    if (databaseUrl) {
      // The database server's own share, and how much the results table grows per stored result.
      const footprint = await resultsFootprint(databaseUrl);
      result.server_cpu_ms_per_probe = round((serverCpuMs() - serverCpu0) / lag.probes, 3);
      result.server_disk_bytes_per_probe = Math.round((serverWrittenBytes() - serverDisk0) / lag.probes);
      result.db_bytes_per_result = Math.round(
        (footprint.bytes - footprint0.bytes) / Math.max(1, footprint.rows - footprint0.rows),
      );
    }
    if (restart) {
      await server.stop({ keepData: true });
      target.arrivals.clear();
      const restartedAt = performance.now();
      server = await startBenchServer({ env, dataDir: server.dataDir });
      const readyMs = performance.now() - restartedAt;
      while (target.arrivals.size < sensors && performance.now() - restartedAt < (interval * 3 + 30) * 1000)
        await sleep(100);
      result.restart = {
        ready_ms: Math.round(readyMs),
        all_probed_again_ms:
          target.arrivals.size >= sensors ? Math.round(performance.now() - restartedAt) : null,
        limit_ms: interval * 1000,
      };
    }
    return result;
  } finally {
    await server.stop();
    await target.close();
  }
}

const round = (n, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export function describe(r) {
  const lines = [
    `scheduler (${r.backend}) ${r.sensors} http sensors @ ${r.interval_s} s for ${r.measured_s} s: created through the API in ${r.create_ms} ms; ` +
      `${r.probes} probes; start lag p50 ${r.lag_ms.p50} ms, p99 ${r.lag_ms.p99} ms, max ${r.lag_ms.max} ms; missed cycles ${r.missed_cycles}; ` +
      `CPU ${r.cpu_ms_per_probe} ms/probe; peak RSS ${r.rss_mib_peak} MiB; ${r.disk_bytes_per_probe} bytes written/probe` +
      (r.server_cpu_ms_per_probe === undefined
        ? ''
        : `; PostgreSQL server: CPU ${r.server_cpu_ms_per_probe} ms/probe, ${r.server_disk_bytes_per_probe} bytes written/probe, results table +${r.db_bytes_per_result} bytes/result`),
  ];
  if (r.restart) {
    lines.push(
      `  after a restart: ready in ${r.restart.ready_ms} ms, every sensor probed again after ${r.restart.all_probed_again_ms} ms (limit: one interval, ${r.restart.limit_ms} ms, plus jitter)`,
    );
  }
  return lines.join('\n');
}

export async function run() {
  const seconds = Number(process.env.BENCH_SECONDS ?? 180);
  try {
    const small = await runScenario({ sensors: 1000, interval: 20, seconds, restart: true });
    console.log(describe(small));
    // On PostgreSQL the issue asks for 10,000 sensors @ 60 s on one instance.
    const postgres = benchBackend() === 'postgres';
    const large = await runScenario({
      sensors: Number(process.env.BENCH_LARGE ?? (postgres ? 10000 : 5000)),
      interval: postgres ? 60 : 30,
      seconds,
    });
    console.log(describe(large));
    return { small, large };
  } finally {
    await stopBackend();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
