// Cluster benchmark (issue 16): three built instances on one PostgreSQL, 10,000 http sensors @ 60 s
// against a local keep-alive target, the default cluster.dead_after (15 s). Reports, for a steady
// window: start lag (scheduler.mjs's definition), duplicate probes (two arrivals of one sensor
// closer than half an interval), missed cycles (a gap above 1.5 intervals), CPU per probe summed
// over the instances and PostgreSQL's, database connections per application_name, RSS. Then kill -9
// of one instance while 30 of the 300 sensors with a webhook channel are down: time until every
// sensor it owned is probed again (against dead_after + interval), duplicates around the takeover,
// and, once the failing sensors answer again, down/up alerts per failing sensor at the receiver
// (each must have exactly one of each). Last, a SIGTERM hand-over of a second instance.
// Run alone: node bench/cluster.mjs (needs npm run build:server). BENCH_CLUSTER_SENSORS,
// BENCH_CLUSTER_INTERVAL and BENCH_CLUSTER_SECONDS (steady window) make a shorter run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { apiKeyFor, createSensors } from './support/api.mjs';
import {
  connections,
  duplicates,
  handover,
  loggedAfter,
  startReceiver,
  waitFor,
  warnings,
} from './support/cluster-readings.mjs';
import { postgresDatabase, serverCpuMs, stopBackend } from './support/pg-backend.mjs';
import { cpuMs, rssMiB } from './support/proc.mjs';
import { startBenchServer } from './support/server.mjs';
import { startTarget } from './support/target.mjs';
import { lagStats } from './scheduler.mjs';

// The real rendezvous function (libs/domain), compiled on require by the harness's .ts hook.
const { ownerOf } = createRequire(import.meta.url)('../libs/domain/src/cluster-membership.ts');

const PASSWORD = 'bench password 12345';
const NAMES = ['a', 'b', 'c'];
const DEAD_AFTER_S = 15;
const ALERTED = 300;
const FAILING = 30;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const load = () => loadavg().map((l) => round(l, 2));

export async function runScenario({ sensors, interval, seconds }) {
  const intervalMs = interval * 1000;
  const databaseUrl = await postgresDatabase();
  const configDir = mkdtempSync(join(tmpdir(), 'monitor-bench-cluster-'));
  const config = join(configDir, 'monitor.yaml');
  writeFileSync(config, `cluster:\n  dead_after: ${DEAD_AFTER_S}s\n`);
  const target = await startTarget();
  const receiver = await startReceiver();
  const servers = {};
  const killed = new Set();
  const start = (name) =>
    startBenchServer({
      env: {
        MONITOR_ADMIN_PASSWORD: PASSWORD,
        MONITOR_DATABASE_URL: databaseUrl,
        MONITOR_INSTANCE_NAME: name,
      },
      args: ['--config', config],
    }).then((server) => (servers[name] = server));
  const db = new pg.Client({ connectionString: databaseUrl, application_name: 'bench' });
  const result = { sensors, interval_s: interval, dead_after_s: DEAD_AFTER_S, load_avg: { start: load() } };
  try {
    await start('a'); // the first migrates; the others join it
    await Promise.all([start('b'), start('c')]);
    await db.connect();
    const headers = await apiKeyFor(servers.a.url, PASSWORD);
    const channel = await (
      await fetch(`${servers.a.url}/api/channels`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'bench', type: 'webhook', config: { url: receiver.url } }),
      })
    ).json();
    for (let i = 0; i < FAILING; i++) target.failing.add(String(i));
    const bodies = Array.from({ length: sensors }, (_, i) => ({
      name: `cluster-${i}`,
      type: 'http',
      target: `${target.url}/s/${i}`,
      interval,
      options: { timeout: Math.min(10, interval) },
      ...(i < ALERTED ? { retries: 1, channels: [channel.id] } : {}),
    }));
    // Created through all three instances at once, a third each.
    const createStarted = performance.now();
    const chunk = Math.ceil(sensors / NAMES.length);
    const ids = (
      await Promise.all(
        NAMES.map((name, n) =>
          createSensors(servers[name].url, headers, bodies.slice(n * chunk, (n + 1) * chunk), 4),
        ),
      )
    ).flat();
    result.create_ms = Math.round(performance.now() - createStarted);
    const keys = ids.map((_, i) => String(i));
    const keysOwnedBy = (name, members) => keys.filter((k) => ownerOf(ids[Number(k)], members) === name);

    await sleep(intervalMs + 5000);
    // Ownership as the instances report it, beside the rendezvous function over the three names.
    const view = await (await fetch(`${servers.b.url}/api/cluster`, { headers })).json();
    result.owned = Object.fromEntries(
      NAMES.map((name) => [
        name,
        {
          reported: view.instances.find((i) => i.name === name)?.sensors ?? null,
          computed: keysOwnedBy(name, NAMES).length,
        },
      ]),
    );

    // Steady window.
    const pids = Object.fromEntries(NAMES.map((n) => [n, servers[n].child.pid]));
    const since = performance.now();
    const cpu0 = Object.fromEntries(NAMES.map((n) => [n, cpuMs(pids[n])]));
    const pgCpu0 = serverCpuMs();
    const rss = Object.fromEntries(NAMES.map((n) => [n, 0]));
    const conns = {};
    let tick = 0;
    while (performance.now() < since + seconds * 1000) {
      await sleep(1000);
      for (const n of NAMES) rss[n] = Math.max(rss[n], rssMiB(pids[n]));
      if (tick++ % 5 === 0)
        for (const [app, n] of Object.entries(await connections(db)))
          conns[app] = Math.max(conns[app] ?? 0, n);
    }
    const until = performance.now();
    const cpu = Object.fromEntries(NAMES.map((n) => [n, cpuMs(pids[n]) - cpu0[n]]));
    const pgCpu = serverCpuMs() - pgCpu0;
    // The failing sensors answer 500 on their schedule like the others; all sensors count here.
    const lag = lagStats(target.arrivals, intervalMs, since);
    const cycles = seconds / interval;
    const dup = duplicates(target.arrivals, keys, intervalMs, since, until);
    result.steady = {
      measured_s: seconds,
      probes: lag.probes,
      expected_probes: Math.round(sensors * cycles),
      never_probed: keys.filter((k) => !(target.arrivals.get(k) ?? []).some((t) => t >= since)).length,
      lag_ms: { p50: round(lag.p50), p99: round(lag.p99), max: round(lag.max) },
      duplicates: dup.count,
      duplicates_per_cycle: round(dup.count / cycles, 2),
      missed_cycles: lag.missed,
      cpu_ms_per_probe: round((cpu.a + cpu.b + cpu.c) / lag.probes, 3),
      cpu_ms_per_probe_by_instance: Object.fromEntries(NAMES.map((n) => [n, round(cpu[n] / lag.probes, 3)])),
      postgres_cpu_ms_per_probe: round(pgCpu / lag.probes, 3),
      rss_mib_peak: Object.fromEntries(NAMES.map((n) => [n, round(rss[n])])),
      connections_peak: conns,
      load_avg: load(),
    };

    // kill -9 of c while some of its sensors are down.
    const victim = 'c';
    const owned = keysOwnedBy(victim, NAMES);
    const failingIds = new Set(ids.slice(0, FAILING));
    const downsBefore = new Set(receiver.alerts.filter((a) => a.event === 'down').map((a) => a.sensor));
    const ownedFailing = owned.filter((k) => Number(k) < FAILING);
    const killAt = performance.now();
    const killWall = Date.now();
    const limitMs = (DEAD_AFTER_S + interval) * 1000;
    servers[victim].child.kill('SIGKILL');
    killed.add(victim);
    await new Promise((resolve) => servers[victim].child.on('close', resolve));
    const probedAgain = () => owned.every((k) => (target.arrivals.get(k) ?? []).some((t) => t >= killAt));
    await waitFor(probedAgain, limitMs + intervalMs + 30_000);
    const takenOver = performance.now();
    await sleep(Math.min(intervalMs, 30_000)); // let the next cycle show duplicates, if any
    const takeover = handover(target.arrivals, owned, killAt, intervalMs, limitMs);
    const others = keys.filter((k) => !owned.includes(k));
    result.kill = {
      victim,
      owned_sensors: owned.length,
      owned_failing: ownedFailing.length,
      owned_failing_announced_down_before_kill: ownedFailing.filter((k) => downsBefore.has(ids[Number(k)]))
        .length,
      ...takeover,
      limit_ms: limitMs,
      // When the survivors noticed (their log line), ms after the kill.
      noticed_ms: loggedAfter(servers, ['a', 'b'], 'instance stopped answering', killWall),
      took_over_ms: loggedAfter(servers, ['a', 'b'], 'took sensors over', killWall),
      within_limit: takeover.not_probed_again === 0 && takeover.first_probe_after_ms.max <= limitMs,
      duplicates: duplicates(target.arrivals, keys, intervalMs, killAt - intervalMs, performance.now()).count,
      others_missed_cycles: lagStats(
        new Map(others.map((k) => [k, target.arrivals.get(k) ?? []])),
        intervalMs,
        killAt - intervalMs,
      ).missed,
    };

    // The failing sensors answer again: each must be announced down once and up once in all.
    target.failing.clear();
    const recoveredAt = performance.now();
    const upOf = () => new Set(receiver.alerts.filter((a) => a.event === 'up').map((a) => a.sensor));
    await waitFor(() => [...failingIds].every((id) => upOf().has(id)), 2 * intervalMs + 30_000);
    await sleep(5000);
    const perSensor = (event, id) =>
      receiver.alerts.filter((a) => a.event === event && a.sensor === id).length;
    const tally = (event) => {
      let duplicated = 0;
      let lost = 0;
      for (const id of failingIds) {
        const n = perSensor(event, id);
        duplicated += Math.max(0, n - 1);
        lost += n === 0 ? 1 : 0;
      }
      return { received: receiver.alerts.filter((a) => a.event === event).length, duplicated, lost };
    };
    result.alerts = {
      failing_sensors: FAILING,
      down: tally('down'),
      up: tally('up'),
      for_healthy_sensors: receiver.alerts.filter((a) => !failingIds.has(a.sensor)).length,
      up_after_recovery_ms: Math.round(
        Math.max(0, ...receiver.alerts.filter((a) => a.event === 'up').map((a) => a.at - recoveredAt)),
      ),
    };
    result.after_takeover_missed_cycles = lagStats(target.arrivals, intervalMs, takenOver).missed;

    // SIGTERM of b: a takes its sensors at once, on their old schedule.
    const leaver = 'b';
    const handed = keysOwnedBy(leaver, ['a', 'b']);
    const termAt = performance.now();
    const termWall = Date.now();
    const stopping = servers[leaver].stop().then(() => performance.now() - termAt);
    const allAgain = () => handed.every((k) => (target.arrivals.get(k) ?? []).some((t) => t >= termAt));
    await waitFor(allAgain, intervalMs + 30_000);
    await sleep(Math.min(intervalMs / 2, 15_000));
    result.sigterm = {
      instance: leaver,
      exit_ms: Math.round(await stopping),
      ...handover(target.arrivals, handed, termAt, intervalMs, intervalMs),
      left_noticed_ms: loggedAfter(servers, ['a'], 'instance left the cluster', termWall),
      took_over_ms: loggedAfter(servers, ['a'], 'took sensors over', termWall),
      duplicates: duplicates(target.arrivals, keys, intervalMs, termAt - intervalMs, performance.now()).count,
    };
    result.load_avg.end = load();
    result.warnings = Object.fromEntries(NAMES.map((n) => [n, warnings(servers[n])]));
    return result;
  } finally {
    await db.end().catch(() => undefined);
    for (const name of Object.keys(servers)) {
      if (killed.has(name)) rmSync(servers[name].dataDir, { recursive: true, force: true });
      else await servers[name].stop();
    }
    rmSync(configDir, { recursive: true, force: true });
    await target.close();
    await receiver.close();
  }
}

export function describe(r) {
  const s = r.steady;
  const k = r.kill;
  const t = r.sigterm;
  const conns = Object.entries(s.connections_peak)
    .map(([app, n]) => `'${app}' ${n}`)
    .join(', ');
  const owned = NAMES.map((n) => `${n} ${r.owned[n].reported} (computed ${r.owned[n].computed})`).join(', ');
  const ms = (times) =>
    Object.entries(times)
      .map(([n, v]) => `by ${n} after ${v} ms`)
      .join(', ');
  const after = (h) =>
    h.first_probe_after_ms
      ? `p50 ${h.first_probe_after_ms.p50} ms, max ${h.first_probe_after_ms.max} ms`
      : 'never';
  return [
    `cluster: 3 instances on one PostgreSQL, ${r.sensors} http sensors @ ${r.interval_s} s, dead_after ${r.dead_after_s} s; created through the three in ${r.create_ms} ms; owned: ${owned}`,
    `  steady ${s.measured_s} s: ${s.probes} probes (${s.expected_probes} expected, ${s.never_probed} sensors never probed); start lag p50 ${s.lag_ms.p50} ms, p99 ${s.lag_ms.p99} ms, max ${s.lag_ms.max} ms; ` +
      `duplicates ${s.duplicates} (${s.duplicates_per_cycle}/cycle); missed cycles ${s.missed_cycles}; CPU ${s.cpu_ms_per_probe} ms/probe over the instances ` +
      `(${NAMES.map((n) => `${n} ${s.cpu_ms_per_probe_by_instance[n]}`).join(', ')}), PostgreSQL ${s.postgres_cpu_ms_per_probe} ms/probe; ` +
      `connections at most: ${conns}; peak RSS ${NAMES.map((n) => `${n} ${s.rss_mib_peak[n]}`).join(', ')} MiB; load average ${s.load_avg.join(' ')}`,
    `  kill -9 of ${k.victim} (${k.owned_sensors} sensors, ${k.owned_failing} of them down, ${k.owned_failing_announced_down_before_kill} announced): every one probed again after ${after(k)} ` +
      `(limit dead_after + interval ${k.limit_ms} ms: ${k.within_limit ? 'met' : 'NOT met'}; ${k.not_probed_again} never); ` +
      `${k.over_limit} over it; noticed ${ms(k.noticed_ms)}, took over ${ms(k.took_over_ms)}; ` +
      `cycles skipped ${k.cycles_skipped}, longest gap ${k.max_gap_ms} ms; ` +
      `duplicates ${k.duplicates}; other sensors' missed cycles ${k.others_missed_cycles}`,
    `  alerts for ${r.alerts.failing_sensors} failing sensors: down ${r.alerts.down.received} (duplicated ${r.alerts.down.duplicated}, lost ${r.alerts.down.lost}), ` +
      `up ${r.alerts.up.received} (duplicated ${r.alerts.up.duplicated}, lost ${r.alerts.up.lost}); for healthy sensors ${r.alerts.for_healthy_sensors}; ` +
      `missed cycles after the takeover ${r.after_takeover_missed_cycles}`,
    `  SIGTERM of ${t.instance} (exit in ${t.exit_ms} ms, ${t.sensors} sensors): probed again after ${after(t)} (${t.not_probed_again} never, ${t.over_limit} over one interval); noticed ${ms(t.left_noticed_ms)}, took over ${ms(t.took_over_ms)}; cycles skipped ${t.cycles_skipped}, longest gap ${t.max_gap_ms} ms; duplicates ${t.duplicates}`,
    `  load average: start ${r.load_avg.start.join(' ')}, end ${r.load_avg.end.join(' ')}`,
  ].join('\n');
}

export async function run() {
  try {
    const result = await runScenario({
      sensors: Number(process.env.BENCH_CLUSTER_SENSORS ?? 10000),
      interval: Number(process.env.BENCH_CLUSTER_INTERVAL ?? 60),
      seconds: Number(process.env.BENCH_CLUSTER_SECONDS ?? 180),
    });
    mkdirSync('bench/results', { recursive: true });
    writeFileSync('bench/results/cluster.json', `${JSON.stringify(result, null, 2)}\n`);
    console.log(describe(result));
    return result;
  } finally {
    await stopBackend();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
