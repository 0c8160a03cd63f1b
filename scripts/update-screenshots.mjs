#!/usr/bin/env node
// Retakes the screenshots in docs/screenshots/ (npm run screenshots; needs npm run build first).
// The browser tests always write their screenshots to the ignored test-output/screenshots/; this runs
// the ones that take screenshots and copies what they wrote over docs/screenshots/, so nothing else
// ever changes the tracked images. Nothing is copied when a test fails.
// Usage: node scripts/update-screenshots.mjs [spec name…]   (e.g. "about": only e2e/about.spec.ts)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const shots = join(root, 'test-output', 'screenshots');
const docs = join(root, 'docs', 'screenshots');

const wanted = process.argv.slice(2);
const specs = readdirSync(join(root, 'e2e'))
  .filter((file) => file.endsWith('.spec.ts'))
  .filter((file) => readFileSync(join(root, 'e2e', file), 'utf8').includes('SCREENSHOTS_DIR'))
  .filter((file) => wanted.length === 0 || wanted.includes(file.replace(/\.spec\.ts$/, '')));
if (specs.length === 0) {
  console.error(`no browser test takes screenshots${wanted.length ? ` among: ${wanted.join(', ')}` : ''}`);
  process.exit(1);
}

// Start empty, so only images this run took are copied.
rmSync(shots, { recursive: true, force: true });
const pattern = `e2e/(${specs.map((file) => file.replace(/\./g, '\\.')).join('|')})$`;
const jest = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules/jest/bin/jest.js'),
    '--selectProjects',
    'e2e',
    '--runInBand',
    '--testPathPatterns',
    pattern,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, TZ: 'UTC' } },
);
if (jest.status !== 0) {
  console.error('a browser test failed: docs/screenshots/ left as it was');
  process.exit(1);
}

const taken = existsSync(shots) ? readdirSync(shots).filter((file) => file.endsWith('.png')) : [];
mkdirSync(docs, { recursive: true });
let changed = 0;
let added = 0;
for (const file of taken) {
  const target = join(docs, file);
  const before = existsSync(target) ? readFileSync(target) : undefined;
  if (before?.equals(readFileSync(join(shots, file)))) continue;
  copyFileSync(join(shots, file), target);
  if (before) changed += 1;
  else added += 1;
}
console.log(
  `docs/screenshots/: ${taken.length} taken, ${changed} changed, ${added} new, ${taken.length - changed - added} unchanged`,
);
