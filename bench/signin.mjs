// Sign-in latency at bcrypt cost 12, and the server's event-loop delay while 10 sign-ins run at
// once (bcrypt hashes in libuv's thread pool, so the loop must stay free). Target: p99 < 50 ms.
import { percentile, startBenchServer } from './support/server.mjs';

const PASSWORD = 'bench password 12345';
const SEQUENTIAL = 20;
const ROUNDS = 5;
const CONCURRENT = 10;

export async function run() {
  const server = await startBenchServer({
    env: { MONITOR_ADMIN_PASSWORD: PASSWORD },
    nodeArgs: ['--require', './bench/support/loop-probe.cjs'],
  });
  const login = async () => {
    const started = performance.now();
    const res = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    });
    if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`);
    await res.arrayBuffer();
    return performance.now() - started;
  };
  const loopDelay = async () => {
    const before = server.stderrLines.length;
    server.child.kill('SIGUSR2');
    while (server.stderrLines.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
    return JSON.parse(server.stderrLines[server.stderrLines.length - 1]).loop_delay_ms;
  };
  try {
    await login();
    const sequential = [];
    for (let i = 0; i < SEQUENTIAL; i++) sequential.push(await login());
    await loopDelay();
    const concurrent = [];
    for (let round = 0; round < ROUNDS; round++) {
      concurrent.push(...(await Promise.all(Array.from({ length: CONCURRENT }, login))));
    }
    const loop = await loopDelay();
    const result = {
      sequential_ms: { p50: percentile(sequential, 50), p99: percentile(sequential, 99) },
      concurrent_10_ms: { p50: percentile(concurrent, 50), p99: percentile(concurrent, 99) },
      loop_delay_during_concurrent_ms: { ...loop, target_p99: 50 },
    };
    console.log(
      `signin: one sign-in (bcrypt cost 12) p50 ${result.sequential_ms.p50.toFixed(0)} ms, p99 ${result.sequential_ms.p99.toFixed(0)} ms; ` +
        `${CONCURRENT} at once ×${ROUNDS}: each p50 ${result.concurrent_10_ms.p50.toFixed(0)} ms, p99 ${result.concurrent_10_ms.p99.toFixed(0)} ms; ` +
        `server event-loop delay meanwhile p50 ${loop.p50} ms, p99 ${loop.p99} ms, max ${loop.max} ms (target p99 < 50)`,
    );
    return result;
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
