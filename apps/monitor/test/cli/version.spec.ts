import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAIN_JS, REPO_ROOT, runCli } from '../support/server-process';
import { requireBuiltExecutable } from './cli-support';

jest.setTimeout(60_000);

const BUILD_INFO = path.join(path.dirname(MAIN_JS), 'build-info.json');
const KEYS = ['version', 'build', 'commit', 'build_date', 'channel'] as const;

const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;

describe('monitor version', () => {
  beforeAll(() => {
    requireBuiltExecutable();
    if (!fs.existsSync(BUILD_INFO)) {
      throw new Error(`${BUILD_INFO} is missing: stamp the build with \`node scripts/stamp-build.mjs\``);
    }
  });

  it('prints version, build, commit, build_date and channel lines equal to build-info.json', async () => {
    const result = await runCli(['version']);
    const stamped = readJson(BUILD_INFO);

    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.map((line) => line.split(':')[0])).toEqual([...KEYS]);
    for (const key of KEYS) {
      const value = String(stamped[key]);
      expect(value).not.toBe('');
      expect(lines).toContain(`${key}: ${value}`);
    }
  });

  it('prints one JSON object with those keys for --json', async () => {
    const result = await runCli(['version', '--json']);
    const stamped = readJson(BUILD_INFO);

    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const info = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(Object.keys(info).sort()).toEqual([...KEYS].sort());
    for (const key of KEYS) expect(info[key]).toBe(String(stamped[key]));
    expect(['release', 'dev', 'local']).toContain(info.channel);
  });

  it("reports package.json's version", async () => {
    const pkg = readJson(path.join(REPO_ROOT, 'package.json'));
    const result = await runCli(['version', '--json']);

    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { version: string }).version).toBe(pkg.version);
    expect(result.stdout).toMatch(/"version":"\d+\.\d+\.\d+/);
  });
});
