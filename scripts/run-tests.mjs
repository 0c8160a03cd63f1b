// Runs every jest suite (unit, API, CLI, browser) and ends with one plain line: "N passed, M failed".
// Extra arguments go to jest. The summary is also written to test-summary.txt for .ci/run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'monitor-jest-'));
const resultsFile = join(dir, 'results.json');
const jest = spawnSync(
  process.execPath,
  [
    'node_modules/jest/bin/jest.js',
    '--runInBand',
    '--json',
    `--outputFile=${resultsFile}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit', env: { ...process.env, TZ: 'UTC' } },
);

let passed = 0;
let failed = 0;
if (existsSync(resultsFile)) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  passed = results.numPassedTests;
  // A suite that fails to load has no failed tests of its own; count it so it cannot pass silently.
  failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
} else {
  failed = 1;
}
rmSync(dir, { recursive: true, force: true });
const summary = `${passed} passed, ${failed} failed`;
writeFileSync('test-summary.txt', `${summary}\n`);
// .ci/run prints the file itself as its very last line.
if (!process.env.MONITOR_TEST_SUMMARY_QUIET) console.log(summary);
process.exit(jest.status === 0 && failed === 0 ? 0 : 1);
