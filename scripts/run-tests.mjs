// Runs every jest suite (unit, API, CLI, browser) and ends with one plain line:
// "N passed, M failed, K skipped". Before it, every skipped test is listed by its title (a test
// skipped for lack of root says so in its title), and the time per kind of suite. The summary is
// also written to test-summary.txt in the working directory for .ci/run. The API and CLI suites
// run on both backends (api and api-pg, cli and cli-pg).
//
// Without arguments the PostgreSQL projects run in a second jest process beside the first (unit,
// api, cli, e2e), each in band: the two halves take about as long, and each spends much of its
// time waiting on child processes and databases, so together they take little more than the
// longer half. The second half's output is printed once it is done, not interleaved. Extra
// arguments go to one jest process, as before.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(join(tmpdir(), 'monitor-jest-'));
const args = process.argv.slice(2);

/** One jest process in band; resolves to its exit status and its results file. */
function jest(name, jestArgs, logFile) {
  const resultsFile = join(dir, `${name}.json`);
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, 'node_modules/jest/bin/jest.js'),
      '--runInBand',
      '--json',
      `--outputFile=${resultsFile}`,
      ...jestArgs,
    ],
    { stdio: logFile ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: { ...process.env, TZ: 'UTC' } },
  );
  if (logFile) {
    const log = createWriteStream(logFile);
    child.stdout.pipe(log);
    child.stderr.pipe(log);
  }
  return new Promise((resolve) =>
    child.on('close', (status) => resolve({ status: status ?? 1, resultsFile, logFile })),
  );
}

const runs =
  args.length > 0
    ? [jest('all', args)]
    : [
        jest('sqlite', ['--selectProjects', 'unit', 'api', 'cli', 'e2e']),
        jest('postgres', ['--selectProjects', 'api-pg', 'cli-pg'], join(dir, 'postgres.log')),
      ];
const finished = await Promise.all(runs);

let passed = 0;
let failed = 0;
let skipped = 0;
const skippedTitles = [];
/** Seconds per kind of suite (both backends together), so CI shows where its time goes. */
const projectSeconds = new Map();
for (const { status, resultsFile, logFile } of finished) {
  if (logFile) process.stdout.write(readFileSync(logFile, 'utf8'));
  if (!existsSync(resultsFile)) {
    failed += 1;
    continue;
  }
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  passed += results.numPassedTests;
  // A suite that fails to load has no failed tests of its own; count it so it cannot pass silently.
  failed += results.numFailedTests + results.numRuntimeErrorTestSuites;
  // A jest process that failed with nothing counted (a crash, a global setup that threw) fails too.
  if (status !== 0 && results.numFailedTests + results.numRuntimeErrorTestSuites === 0) failed += 1;
  skipped += results.numPendingTests + results.numTodoTests;
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
}
rmSync(dir, { recursive: true, force: true });
const times = [...projectSeconds].map(([project, seconds]) => `${project} ${Math.round(seconds)} s`);
if (times.length > 0) console.log(`time per kind of suite: ${times.join(', ')}`);
// Why a test did not run is in its title (e.g. "… (needs root: chown)"), so list them before the summary.
for (const line of skippedTitles) console.log(line);
const summary = `${passed} passed, ${failed} failed, ${skipped} skipped`;
writeFileSync('test-summary.txt', `${summary}\n`);
// .ci/run prints the file itself as its very last line.
if (!process.env.MONITOR_TEST_SUMMARY_QUIET) console.log(summary);
process.exit(finished.every((run) => run.status === 0) && failed === 0 ? 0 : 1);
