// PostgreSQL for benchmarks: a throw-away cluster (the tests' harness), a database per scenario,
// and readings of the whole server (postmaster and its backends) from /proc, so figures on
// PostgreSQL count the database's own CPU and writes as the SQLite figures count the monitor's.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgresCluster } from './pg-harness.mjs';

const TICKS_PER_SECOND = 100;

/** The backend a benchmark runs on: BENCH_BACKEND=postgres, or SQLite (the default). */
export const benchBackend = () => (process.env.BENCH_BACKEND === 'postgres' ? 'postgres' : 'sqlite');

let cluster;

/** Env for startBenchServer on the chosen backend: {} on SQLite, a fresh database's URL on PostgreSQL. */
export async function backendEnv() {
  if (benchBackend() !== 'postgres') return {};
  return { MONITOR_DATABASE_URL: await postgresDatabase() };
}

/** A fresh database's URL on the throw-away cluster, whatever BENCH_BACKEND says. */
export async function postgresDatabase() {
  cluster ??= await startPostgresCluster();
  return cluster.createDatabase();
}

export async function stopBackend() {
  await cluster?.stop();
  cluster = undefined;
}

function postmasterPid() {
  return Number(readFileSync(join(cluster.directory, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

function serverPids() {
  const root = postmasterPid();
  const pids = [root];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(fields[1]) === root) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** CPU milliseconds of the PostgreSQL server so far (live processes and exited backends). */
export function serverCpuMs() {
  if (!cluster) return 0;
  let ticks = 0;
  for (const pid of serverPids()) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks +=
        Number(fields[11]) +
        Number(fields[12]) +
        (pid === postmasterPid() ? Number(fields[13]) + Number(fields[14]) : 0);
    } catch {
      // gone meanwhile
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Bytes the PostgreSQL server's processes have written to storage so far. */
export function serverWrittenBytes() {
  if (!cluster) return 0;
  let bytes = 0;
  for (const pid of serverPids()) {
    try {
      const io = readFileSync(`/proc/${pid}/io`, 'utf8');
      bytes += Number(/^write_bytes: (\d+)$/m.exec(io)?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return bytes;
}

/** Size of the results table (with its indexes) and its row count, for growth per stored result. */
export async function resultsFootprint(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT pg_total_relation_size('probe_results')::bigint AS bytes, (SELECT count(*) FROM probe_results)::bigint AS n`,
    );
    return { bytes: Number(rows[0].bytes), rows: Number(rows[0].n) };
  } finally {
    await client.end();
  }
}
