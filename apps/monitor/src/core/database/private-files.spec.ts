import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createPrivateFile, makePrivateDirectory, tightenPrivateFiles } from './private-files';

const modeOf = (file: string): number => fs.lstatSync(file).mode & 0o777;

describe('private files of the data directory', () => {
  let root: string;
  let umask: number;

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-private-'));
    umask = process.umask(0o000);
  });

  afterEach(() => {
    process.umask(umask);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('creates a missing directory 0700 under umask 000, and leaves an existing one as it is', () => {
    const dir = path.join(root, 'a', 'data');
    makePrivateDirectory(dir);
    expect(modeOf(dir)).toBe(0o700);
    // A parent it had to make stays reachable for the identity the process drops to.
    expect(modeOf(path.join(root, 'a')) & 0o055).toBe(0o055);
    makePrivateDirectory(dir);
    expect(modeOf(dir)).toBe(0o700);
    fs.writeFileSync(path.join(root, 'file'), 'x');
    expect(() => makePrivateDirectory(path.join(root, 'file'))).toThrow(/EEXIST/);
    const existing = path.join(root, 'existing');
    fs.mkdirSync(existing, { mode: 0o755 });
    makePrivateDirectory(existing);
    expect(modeOf(existing)).toBe(0o755);
  });

  it('creates a new file 0600 under umask 000 and refuses to reuse one', () => {
    const file = path.join(root, 'monitor.db');
    createPrivateFile(file);
    expect(modeOf(file)).toBe(0o600);
    expect(() => createPrivateFile(file)).toThrow(/EEXIST/);
  });

  it('takes group and other bits off our files only, never following a symbolic link', () => {
    const ours = [
      'monitor.db',
      'monitor.db-wal',
      'monitor.db-shm',
      'monitor.db.before-restore-20261121T130000000Z',
      'monitor-before-restore-2026-11-21T13-00-00Z.json',
      '.monitor.db.restore-upload-0a1b2c',
    ];
    for (const name of [...ours, 'notes.txt']) fs.writeFileSync(path.join(root, name), 'x', { mode: 0o666 });
    const outside = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-outside-')), 'target');
    fs.writeFileSync(outside, 'x', { mode: 0o644 });
    fs.symlinkSync(outside, path.join(root, 'monitor.db.before-restore-link'));

    expect(tightenPrivateFiles(root).sort()).toEqual([...ours].sort());
    for (const name of ours) expect([name, modeOf(path.join(root, name))]).toEqual([name, 0o600]);
    expect(modeOf(path.join(root, 'notes.txt'))).toBe(0o666);
    expect(modeOf(outside)).toBe(0o644);
    expect(tightenPrivateFiles(root)).toEqual([]);
    fs.rmSync(path.dirname(outside), { recursive: true });
  });
});
