// Stamps dist/apps/monitor/build-info.json (version, build, commit, build_date, channel) and makes
// main.js executable. Overrides for builds without git: MONITOR_BUILD, MONITOR_COMMIT,
// MONITOR_BUILD_DATE, MONITOR_BUILD_CHANNEL.
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';

const git = (...args) => {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
};

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const commit = process.env.MONITOR_COMMIT || git('rev-parse', '--short=12', 'HEAD') || 'unknown';
const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
const tagged = git('describe', '--exact-match', '--tags', 'HEAD') !== '';
const channel =
  process.env.MONITOR_BUILD_CHANNEL || (commit === 'unknown' || dirty ? 'local' : tagged ? 'release' : 'dev');
const info = {
  version: pkg.version,
  build: process.env.MONITOR_BUILD || git('rev-list', '--count', 'HEAD') || '0',
  commit,
  build_date: process.env.MONITOR_BUILD_DATE || new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  channel,
};
writeFileSync('dist/apps/monitor/build-info.json', `${JSON.stringify(info, null, 2)}\n`);

const main = 'dist/apps/monitor/main.js';
const code = readFileSync(main, 'utf8');
// The production memory flags (see docs/decisions.md) also apply when run as `monitor`.
if (!code.startsWith('#!')) writeFileSync(main, `#!/usr/bin/env -S node --max-semi-space-size=2\n${code}`);
chmodSync(main, 0o755);
console.log(`stamped ${main}: ${info.version} build ${info.build} ${info.commit} (${info.channel})`);
