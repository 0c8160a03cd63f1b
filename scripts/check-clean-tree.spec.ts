import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, 'check-clean-tree.mjs');

describe('check-clean-tree', () => {
  let dir: string;
  const git = (...args: string[]) => {
    const run = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@127.0.0.1', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(run.stderr);
  };
  const check = () => {
    const run = spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: 'utf8' });
    return { status: run.status, output: run.stdout };
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'clean-tree-'));
    git('init', '-q');
    writeFileSync(join(dir, '.gitignore'), 'test-output/\n');
    writeFileSync(join(dir, 'shot.png'), 'v1');
    git('add', '.');
    git('commit', '-q', '-m', 'start');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes a clean tree, ignored files included', () => {
    mkdirSync(join(dir, 'test-output'));
    writeFileSync(join(dir, 'test-output', 'shot.png'), 'new');
    expect(check()).toEqual({ status: 0, output: '' });
  });

  it('fails on a changed tracked file and names it', () => {
    writeFileSync(join(dir, 'shot.png'), 'v2');
    const { status, output } = check();
    expect(status).toBe(1);
    expect(output).toContain(' M shot.png');
  });

  it('fails on an untracked file and names it', () => {
    writeFileSync(join(dir, 'left-behind.db'), '');
    const { status, output } = check();
    expect(status).toBe(1);
    expect(output).toContain('?? left-behind.db');
  });

  it('does not check outside a git checkout', () => {
    rmSync(join(dir, '.git'), { recursive: true, force: true });
    expect(check()).toEqual({ status: 0, output: 'clean tree: not a git checkout, not checked\n' });
  });
});
