import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const pinned = /^MONITOR_NODE_VERSION=(\d+)\.(\d+)\.(\d+)$/m.exec(read('scripts/node-runtime.sh'));

describe('the project’s Node.js', () => {
  it('pins one 24.x release with its integrity', () => {
    expect(pinned?.[1]).toBe('24');
    expect(read('scripts/node-runtime.sh')).toMatch(/^MONITOR_NODE_INTEGRITY='sha512-[A-Za-z0-9+/]+=*'$/m);
  });

  it('is what the tests run on', () => {
    expect(process.version).toBe(`v${pinned?.slice(1).join('.')}`);
  });

  it('is installed into an ignored folder', () => {
    const ignored = execFileSync('git', ['check-ignore', '.runtime/node-v24.0.0/bin/node'], { cwd: root });
    expect(ignored.toString().trim()).toBe('.runtime/node-v24.0.0/bin/node');
  });

  it('is what CI installs with and tests on, every addon compiled for it', () => {
    const run = read('.ci/run');
    const sourced = run.search(/^if \. scripts\/node-runtime\.sh; then$/m);
    expect(sourced).toBeGreaterThan(0);
    expect(sourced).toBeLessThan(run.search(/^\s*npm_config_build_from_source=true npm install /m));
  });

  it('is the major of engines and of every stage of the image', () => {
    const manifest = JSON.parse(read('package.json')) as {
      engines: { node: string };
      devDependencies: Record<string, string>;
    };
    expect(manifest.engines.node).toBe(`>=${pinned?.[1]}`);
    expect(manifest.devDependencies['@types/node']).toMatch(new RegExp(`^\\^${pinned?.[1]}\\.`));
    const stages = read('Dockerfile').match(/^FROM .*$/gm) ?? [];
    expect(stages.length).toBeGreaterThanOrEqual(3);
    for (const stage of stages)
      expect(stage).toMatch(new RegExp(`^FROM node:${pinned?.[1]}-bookworm-slim\\b`));
  });
});
