// Probe start lag while viewers flood the password check (issue 25): a few hundred http sensors
// against a local target, first undisturbed, then while 50 clients (signed in as several viewer
// accounts, each request from another X-Forwarded-For address, as an attacker behind a proxy that
// passes the header on would send them) send PUT /api/password with wrong current passwords.
// bcrypt runs in libuv's thread pool, where probes also resolve names: each sensor names its target
// `localhost` and closes its connection, so every probe needs a lookup from that pool.
// Reports start lag p50/p99/max and the server's event-loop delay in both phases, and how the
// flood was answered. BENCH_MAIN=<path to main.js> measures another build (e.g. the one before).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { startBenchServer } from './support/server.mjs';
import { startTarget } from './support/target.mjs';
import { lagStats } from './scheduler.mjs';

const PASSWORD = 'bench password 12345';
const VIEWER_PASSWORD = 'viewer password 12345';
const floodScript = fileURLToPath(new URL('./support/password-flood.mjs', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n) => Math.round(n * 10) / 10;

/** Start lag of the arrivals inside [since, until). */
function lagBetween(arrivals, intervalMs, since, until) {
  const inside = new Map([...arrivals].map(([key, times]) => [key, times.filter((t) => t < until)]));
  const lag = lagStats(inside, intervalMs, since);
  return {
    p50: round(lag.p50),
    p99: round(lag.p99),
    max: round(lag.max),
    missed: lag.missed,
    probes: lag.probes,
  };
}

function flood(options) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [floodScript, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the flood exited with ${code}`)),
    );
  });
}

async function signIn(url, username, password) {
  const res = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (res.status !== 200) throw new Error(`sign-in of ${username} answered ${res.status}`);
  return res.headers.getSetCookie()[0].split(';')[0];
}

export async function run({
  sensors = Number(process.env.BENCH_SENSORS ?? 300),
  interval = Number(process.env.BENCH_INTERVAL ?? 10),
  seconds = Number(process.env.BENCH_SECONDS ?? 40),
  clients = 50,
  viewers = 10,
  main = process.env.BENCH_MAIN,
} = {}) {
  const target = await startTarget();
  const server = await startBenchServer({
    env: { MONITOR_ADMIN_PASSWORD: PASSWORD, MONITOR_TRUST_PROXY: 'true' },
    nodeArgs: ['--require', './bench/support/loop-probe.cjs'],
    ...(main ? { main } : {}),
  });
  const loopDelay = async () => {
    const before = server.stderrLines.length;
    server.child.kill('SIGUSR2');
    while (server.stderrLines.length === before) await sleep(10);
    return JSON.parse(server.stderrLines[server.stderrLines.length - 1]).loop_delay_ms;
  };
  try {
    const headers = await apiKeyFor(server.url, PASSWORD);
    const cookies = [];
    for (let i = 0; i < viewers; i++) {
      const username = `viewer-${i}`;
      const res = await fetch(`${server.url}/api/users`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ username, password: VIEWER_PASSWORD, role: 'viewer' }),
      });
      if (res.status !== 201) throw new Error(`creating ${username} answered ${res.status}`);
      cookies.push(await signIn(server.url, username, VIEWER_PASSWORD));
    }
    const port = new URL(target.url).port;
    await createSensors(
      server.url,
      headers,
      Array.from({ length: sensors }, (_, i) => ({
        name: `flood-${i}`,
        type: 'http',
        target: `http://localhost:${port}/s/${i}`,
        interval,
        options: { timeout: Math.min(10, interval), headers: { connection: 'close' } },
      })),
    );
    // Every loop makes its first probe within one interval; measure from then on.
    await sleep(interval * 1000 + 2000);
    await loopDelay();
    const quietSince = performance.now();
    await sleep(seconds * 1000);
    const quietUntil = performance.now();
    const quietLoop = await loopDelay();
    const floodSince = performance.now();
    const answered = await flood({ url: server.url, clients, seconds, cookies });
    const floodUntil = performance.now();
    const floodLoop = await loopDelay();
    const result = {
      build: main ?? 'dist/apps/monitor/main.js',
      sensors,
      interval_s: interval,
      measured_s: seconds,
      quiet: {
        lag_ms: lagBetween(target.arrivals, interval * 1000, quietSince, quietUntil),
        loop_delay_ms: quietLoop,
      },
      flood: {
        clients,
        viewers,
        lag_ms: lagBetween(target.arrivals, interval * 1000, floodSince, floodUntil),
        loop_delay_ms: floodLoop,
        answered,
      },
    };
    console.log(describe(result));
    return result;
  } finally {
    await server.stop();
    await target.close();
  }
}

export function describe(r) {
  const lag = (l) =>
    `start lag p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms (${l.probes} probes of about ${l.due} due)`;
  const loop = (l) => `event-loop delay p99 ${l.p99} ms`;
  return [
    `bcrypt flood (${r.build}) ${r.sensors} http sensors @ ${r.interval_s} s, ${r.measured_s} s per phase:`,
    `  quiet: ${lag(r.quiet.lag_ms)}; ${loop(r.quiet.loop_delay_ms)}`,
    `  ${r.flood.clients} clients as ${r.flood.viewers} viewers on PUT /api/password: ${lag(r.flood.lag_ms)}; ${loop(r.flood.loop_delay_ms)}; ` +
      `${r.flood.answered.requests} requests (${r.flood.answered.requests_per_s}/s) answered ${JSON.stringify(r.flood.answered.by_status)}`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
