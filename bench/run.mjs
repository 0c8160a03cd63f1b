// npm run bench: every benchmark in turn, against the built server and dashboard (npm run build
// first; the dashboard benchmark needs Chromium, the cluster benchmark PostgreSQL's binaries).
// One alone: node bench/<name>.mjs (e.g. node bench/cluster.mjs).
// Prints one line per figure and writes bench/results/latest.json.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { run as backup } from './backup.mjs';
import { run as backupStall } from './backup-stall.mjs';
import { run as bcryptFlood } from './bcrypt-flood.mjs';
import { run as cluster } from './cluster.mjs';
import { run as dashboard } from './dashboard.mjs';
import { run as delivery } from './delivery.mjs';
import { run as diskFull } from './disk-full.mjs';
import { run as history } from './history.mjs';
import { run as kill } from './kill.mjs';
import { run as live } from './live.mjs';
import { run as push } from './push.mjs';
import { run as metrics } from './metrics.mjs';
import { run as scheduler } from './scheduler.mjs';
import { run as signin } from './signin.mjs';
import { run as slowClients } from './slow-clients.mjs';
import { run as startup } from './startup.mjs';
import { run as statusPage } from './status-page.mjs';

if (!existsSync('dist/apps/monitor/main.js')) {
  console.error('dist/apps/monitor/main.js is missing: run npm run build first');
  process.exit(1);
}

const results = {
  date: new Date().toISOString(),
  startup: await startup(),
  signin: await signin(),
  bcrypt_flood: await bcryptFlood(),
  slow_clients: await slowClients(),
  scheduler: await scheduler(),
  kill: await kill(),
  delivery: await delivery(),
  history: await history(),
  live: await live(),
  backup: await backup(),
  diskFull: await diskFull(),
  backup_stall: await backupStall(),
  dashboard: await dashboard(),
  cluster: await cluster(),
  status_page: await statusPage(),
  push: await push(),
  metrics: await metrics(),
};
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/latest.json', `${JSON.stringify(results, null, 2)}\n`);
