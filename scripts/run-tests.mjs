// Runs every jest suite (unit, API, CLI, browser) and ends with one plain line:
// "N passed, M failed, K skipped". Before it, every skipped test is listed by its title (a test
// skipped for lack of root says so in its title). Extra arguments go to jest. The summary is also
// written to test-summary.txt in the working directory for .ci/run. The API and CLI suites run on
// both backends (api and api-pg, cli and cli-pg).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(join(tmpdir(), 'monitor-jest-'));
const resultsFile = join(dir, 'results.json');

const jest = spawnSync(
  process.execPath,
  [
    join(repoRoot, 'node_modules/jest/bin/jest.js'),
    '--runInBand',
    '--json',
    `--outputFile=${resultsFile}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit', env: { ...process.env, TZ: 'UTC' } },
);

let passed = 0;
let failed = 0;
let skipped = 0;
const skippedTitles = [];
/** Seconds per kind of suite (both backends together), so CI shows where its time goes. */
const projectSeconds = new Map();
if (existsSync(resultsFile)) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  passed = results.numPassedTests;
  // A suite that fails to load has no failed tests of its own; count it so it cannot pass silently.
  failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
  skipped = results.numPendingTests + results.numTodoTests;
  for (const suite of results.testResults ?? []) {
    const file = relative(repoRoot, suite.name);
    const project = file.startsWith('e2e/')
      ? 'e2e'
      : (/^apps\/monitor\/test\/(api|cli)\//.exec(file)?.[1] ?? 'unit');
    const seconds = ((suite.endTime ?? 0) - (suite.startTime ?? 0)) / 1000;
    projectSeconds.set(project, (projectSeconds.get(project) ?? 0) + seconds);
    for (const test of suite.assertionResults ?? []) {
      if (test.status === 'pending' || test.status === 'todo' || test.status === 'skipped') {
        const kind = test.status === 'todo' ? 'todo' : 'skipped';
        skippedTitles.push(`${kind}: ${test.fullName} (${relative(process.cwd(), suite.name)})`);
      }
    }
  }
} else {
  failed = 1;
}
rmSync(dir, { recursive: true, force: true });
// Why a test did not run is in its title (e.g. "… (needs root: chown)"), so list them before the summary.
for (const line of skippedTitles) console.log(line);
const times = [...projectSeconds].map(([project, seconds]) => `${project} ${Math.round(seconds)} s`);
if (times.length > 0) console.log(`time per kind of suite: ${times.join(', ')}`);
const summary = `${passed} passed, ${failed} failed, ${skipped} skipped`;
writeFileSync('test-summary.txt', `${summary}\n`);
// .ci/run prints the file itself as its very last line.
if (!process.env.MONITOR_TEST_SUMMARY_QUIET) console.log(summary);
process.exit(jest.status === 0 && failed === 0 ? 0 : 1);
