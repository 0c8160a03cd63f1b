import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { REPO_ROOT, tempDir } from '../support/server-process';

jest.setTimeout(180_000);

const refused = (url: string): Promise<boolean> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

describe('the cli-pg jest project', () => {
  const dir = tempDir('monitor-pg-jest-');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('starts one cluster for the run, hands test files fresh databases, and stops it at the end', () => {
    const report = path.join(dir, 'report.json');
    const results = path.join(dir, 'results.json');
    const env: NodeJS.ProcessEnv = { ...process.env, MONITOR_TEST_PG_REPORT: report, TZ: 'UTC' };
    // Whatever this run itself uses must not leak into the nested one.
    delete env.MONITOR_TEST_PG_ADMIN_URL;
    delete env.MONITOR_TEST_BACKEND;
    const jest = spawnSync(
      process.execPath,
      [
        path.join(REPO_ROOT, 'node_modules/jest/bin/jest.js'),
        '--runInBand',
        '--json',
        `--outputFile=${results}`,
        '--selectProjects',
        'cli-pg',
        '--testPathPatterns',
        'cli/test-database\\.spec',
      ],
      { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 150_000 },
    );
    const summary = JSON.parse(fs.readFileSync(results, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      testResults: { assertionResults: { fullName: string }[] }[];
    };
    expect({ status: jest.status, passed: summary.numPassedTests, failed: summary.numFailedTests }).toEqual({
      status: 0,
      passed: 1,
      failed: 0,
    });
    expect(summary.testResults[0].assertionResults[0].fullName).toContain('on the postgres backend');
    const { databases } = JSON.parse(fs.readFileSync(report, 'utf8')) as { databases: string[] };
    expect(databases).toHaveLength(2);
    return Promise.all(databases.map(refused)).then((all) => expect(all).toEqual([true, true]));
  });
});
