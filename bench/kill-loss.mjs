// Results lost per kill -9 (issue 25): N http sensors at 1 s against a local target that notes when
// it answered each probe; the server is killed with SIGKILL at a random moment, its database opened
// (recovering the WAL as a restart would) and the stored results compared with the answered probes.
// Per kill: answered probes never stored, and how long before the kill the oldest of them was
// answered. BENCH_MAIN=<other build>/dist/apps/monitor/main.js measures another build.
import { createServer } from 'node:http';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { startBenchServer } from './support/server.mjs';

const PASSWORD = 'bench password 12345';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startAnsweringTarget() {
  const answered = new Map();
  const server = createServer((req, res) => {
    const key = req.url.slice(3);
    res.on('finish', () => {
      const list = answered.get(key);
      if (list) list.push(Date.now());
      else answered.set(key, [Date.now()]);
    });
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
  });
  server.keepAliveTimeout = 120_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    answered,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

export async function runOnce({ sensors = 200, minSeconds = 8, maxSeconds = 16 } = {}) {
  const target = await startAnsweringTarget();
  const server = await startBenchServer({ env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
  let killed = false;
  try {
    const headers = await apiKeyFor(server.url, PASSWORD);
    const bodies = Array.from({ length: sensors }, (_, i) => ({
      name: `loss-${i}`,
      type: 'http',
      target: `${target.url}/s/${i}`,
      interval: 1,
    }));
    const ids = await createSensors(server.url, headers, bodies);
    await sleep((minSeconds + Math.random() * (maxSeconds - minSeconds)) * 1000);
    const closed = new Promise((resolve) => server.child.on('close', resolve));
    server.child.kill('SIGKILL');
    const killedAt = Date.now();
    killed = true;
    await closed;
    const db = new Database(join(server.dataDir, 'monitor.db'));
    const count = db.prepare('SELECT count(*) AS n FROM probe_results WHERE sensor_id = ?');
    let answered = 0;
    let lost = 0;
    let oldestLostMs = 0;
    const ages = [];
    ids.forEach((id, i) => {
      const times = answeredOf(target.answered, i);
      const stored = count.get(id).n;
      answered += times.length;
      // Results are stored in order: the ones missing are the last answered.
      const missing = times.slice(Math.min(stored, times.length));
      lost += missing.length;
      for (const t of missing) ages.push(killedAt - t);
      if (missing.length > 0) oldestLostMs = Math.max(oldestLostMs, killedAt - missing[0]);
    });
    db.close();
    return {
      sensors,
      answered,
      lost,
      lost_older_than_250ms: ages.filter((a) => a > 250).length,
      oldest_lost_ms: oldestLostMs,
    };
  } finally {
    if (killed) rmSync(server.dataDir, { recursive: true, force: true });
    else await server.stop();
    await target.close();
  }
}

const answeredOf = (answered, i) => answered.get(String(i)) ?? [];

export function describe(r) {
  return `kill -9 with ${r.sensors} sensors @ 1 s: ${r.lost} of ${r.answered} answered probes not stored (${r.lost_older_than_250ms} answered over 250 ms before the kill; oldest ${r.oldest_lost_ms} ms before)`;
}

export async function run() {
  const runs = [];
  for (let i = 0; i < Number(process.env.BENCH_KILLS ?? 5); i++) {
    const r = await runOnce({ sensors: Number(process.env.BENCH_KILL_SENSORS ?? 200) });
    console.log(describe(r));
    runs.push(r);
  }
  const lost = runs.map((r) => r.lost);
  console.log(
    `results lost per kill -9: ${lost.join(', ')} (mean ${Math.round(lost.reduce((a, b) => a + b, 0) / lost.length)})`,
  );
  return runs;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
