import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

jest.setTimeout(60_000);

const SCRIPT = join(__dirname, 'run-tests.mjs');

/** Runs run-tests.mjs on a throw-away jest project holding `spec` and returns its output lines. */
function runOn(spec: string): { status: number | null; lines: string[]; summaryFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'run-tests-'));
  try {
    writeFileSync(join(dir, 'sample.spec.js'), spec);
    const config = JSON.stringify({
      rootDir: dir,
      testMatch: ['<rootDir>/*.spec.js'],
      testEnvironment: 'node',
    });
    const env = { ...process.env };
    delete env.MONITOR_TEST_SUMMARY_QUIET;
    const run = spawnSync(process.execPath, [SCRIPT, '--config', config], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    return {
      status: run.status,
      lines: run.stdout.trim().split('\n'),
      summaryFile: readFileSync(join(dir, 'test-summary.txt'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('run-tests summary', () => {
  it('counts skipped and todo tests and lists their titles before the summary line', () => {
    const { status, lines, summaryFile } = runOn(`
      it('works', () => {});
      it('works too', () => {});
      it.skip('changes the owner of the data directory (needs root: chown)', () => {});
      it.todo('some day');
    `);
    expect(status).toBe(0);
    expect(lines.slice(-3)).toEqual([
      'skipped: changes the owner of the data directory (needs root: chown) (sample.spec.js)',
      'todo: some day (sample.spec.js)',
      '2 passed, 0 failed, 2 skipped',
    ]);
    expect(summaryFile).toBe('2 passed, 0 failed, 2 skipped\n');
  });

  it('fails and counts a failing test and a suite that does not load', () => {
    const { status, lines } = runOn(`
      it('works', () => {});
      it('fails', () => { throw new Error('no'); });
    `);
    expect(status).toBe(1);
    expect(lines.at(-1)).toBe('1 passed, 1 failed, 0 skipped');
    expect(runOn('this is not javascript(').lines.at(-1)).toBe('0 passed, 1 failed, 0 skipped');
  });
});
