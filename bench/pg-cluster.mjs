// node bench/pg-cluster.mjs [rounds]: how long the tests' throw-away PostgreSQL cluster takes to
// start (initdb + pg_ctl start), to create a database and to stop (pg_ctl stop -m fast + removal).
// Not part of npm run bench: it measures the test harness, not the monitor.
import { performance } from 'node:perf_hooks';
import { startPostgresCluster } from './support/pg-harness.mjs';

const rounds = Number(process.argv[2] ?? 5);
const samples = { start: [], create_database: [], stop: [] };
for (let i = 0; i < rounds; i++) {
  let t = performance.now();
  const cluster = await startPostgresCluster();
  samples.start.push(performance.now() - t);
  t = performance.now();
  await cluster.createDatabase();
  samples.create_database.push(performance.now() - t);
  t = performance.now();
  await cluster.stop();
  samples.stop.push(performance.now() - t);
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [name, values] of Object.entries(samples)) {
  const ms = values.map((v) => Math.round(v));
  console.log(
    `pg cluster ${name}: median ${Math.round(median(values))} ms (${ms.join(', ')} ms; ${rounds} rounds)`,
  );
}
