// kill -9 benchmark (issue 13): N http sensors at 1 s (retries 1, one webhook channel) against a
// local target whose sensors the bench takes down and brings back; the server is killed with
// SIGKILL at random moments and restarted on the same data directory. Reports, per run: outages
// (incidents) stored, alerts received, duplicate alerts (the same event twice in a row for a
// sensor), incidents never announced, answered probes that were never stored, and the time from
// restart to listening.
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { startBenchServer } from './support/server.mjs';
import { apiKeyFor, createSensors } from './support/api.mjs';

const PASSWORD = 'bench password 12345';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function listen(handler) {
  const server = createServer(handler);
  server.keepAliveTimeout = 120_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((r) => server.close(r)),
  };
}

export async function runScenario({ sensors = 200, kills = 8, seed = 13 } = {}) {
  let random = seed;
  const rand = () => (random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const down = new Set();
  const answered = new Map();
  const target = await listen((req, res) => {
    const key = req.url.slice(3);
    answered.set(key, (answered.get(key) ?? 0) + 1);
    res.writeHead(down.has(key) ? 503 : 200, { 'content-length': '2' }).end('ok');
  });
  const alerts = new Map();
  const receiver = await listen((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { event, sensor } = JSON.parse(body);
      const list = alerts.get(sensor.id) ?? [];
      list.push(event);
      alerts.set(sensor.id, list);
      res.writeHead(200).end();
    });
  });

  let server = await startBenchServer({ env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
  const dataDir = server.dataDir;
  const restarts = [];
  try {
    const headers = await apiKeyFor(server.url, PASSWORD);
    const channel = await (
      await fetch(`${server.url}/api/channels`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'bench', type: 'webhook', config: { url: `${receiver.url}/hook` } }),
      })
    ).json();
    const bodies = Array.from({ length: sensors }, (_, i) => ({
      name: `kill-${i}`,
      type: 'http',
      target: `${target.url}/s/${i}`,
      interval: 1,
      retries: 1,
      channels: [channel.id],
    }));
    const ids = await createSensors(server.url, headers, bodies);
    const keyOf = new Map(ids.map((id, i) => [String(i), id]));

    for (let round = 0; round < kills; round++) {
      // Outages of 1.5–5 s on a tenth of the sensors, starting and ending at random moments.
      const until = Date.now() + 6000 + rand() * 4000;
      while (Date.now() < until) {
        const key = String(Math.floor(rand() * sensors));
        if (!down.has(key)) {
          down.add(key);
          setTimeout(() => down.delete(key), 1500 + rand() * 3500);
        }
        await sleep(600 / Math.max(1, sensors / 100));
      }
      server.child.kill('SIGKILL');
      await new Promise((resolve) => server.child.on('close', resolve));
      const started = performance.now();
      server = await startBenchServer({ dataDir });
      restarts.push(performance.now() - started);
    }
    down.clear();
    await sleep(4000); // every outage over and announced
    await server.stop({ keepData: true });

    const db = new Database(join(dataDir, 'monitor.db'), { readonly: true });
    const incidents = db.prepare('SELECT sensor_id, reconstructed, resolved_at FROM incidents').all();
    const stored = new Map(
      db
        .prepare('SELECT sensor_id, count(*) AS n FROM probe_results GROUP BY sensor_id')
        .all()
        .map((r) => [r.sensor_id, r.n]),
    );
    db.close();
    let duplicates = 0;
    let downs = 0;
    let ups = 0;
    for (const list of alerts.values()) {
      for (let i = 0; i < list.length; i++) {
        if (list[i] === 'down') downs++;
        if (list[i] === 'up') ups++;
        if (i > 0 && list[i] === list[i - 1]) duplicates++;
      }
    }
    const announced = incidents.filter((i) => !i.reconstructed).length;
    // Per sensor: incidents opened while running that got no down alert.
    let neverAnnounced = 0;
    for (const id of ids) {
      const opened = incidents.filter((i) => i.sensor_id === id && !i.reconstructed).length;
      const sent = (alerts.get(id) ?? []).filter((e) => e === 'down').length;
      neverAnnounced += Math.max(0, opened - sent);
    }
    let lost = 0;
    for (const [key, count] of answered) lost += Math.max(0, count - (stored.get(keyOf.get(key)) ?? 0));
    const probes = [...answered.values()].reduce((a, b) => a + b, 0);
    return {
      sensors,
      kills,
      incidents: incidents.length,
      reconstructed: incidents.length - announced,
      alerts: { down: downs, up: ups, duplicates },
      announced_incidents: announced,
      never_announced: neverAnnounced,
      probes_answered: probes,
      results_lost: lost,
      restart_ms_max: Math.round(Math.max(...restarts)),
    };
  } finally {
    await server.stop();
    await target.close();
    await receiver.close();
  }
}

export function describe(r) {
  return (
    `kill -9 ${r.kills}× with ${r.sensors} sensors @ 1 s: ${r.incidents} incidents (${r.reconstructed} reconstructed); ` +
    `alerts down ${r.alerts.down}, up ${r.alerts.up}, duplicates ${r.alerts.duplicates}; incidents never announced ${r.never_announced}; ` +
    `${r.results_lost} of ${r.probes_answered} answered probes not stored; restart to listening at most ${r.restart_ms_max} ms`
  );
}

export async function run() {
  const result = await runScenario({ sensors: Number(process.env.BENCH_KILL_SENSORS ?? 200) });
  console.log(describe(result));
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
