#!/usr/bin/env node
// Fails (exit 1) when the git working tree has changes or untracked files that are not ignored,
// listing them: a test run, a build or an install must never leave the tree dirty.
// Outside a git checkout (an unpacked archive) there is nothing to compare with: exit 0 with a note.
import { spawnSync } from 'node:child_process';

const git = (...args) => spawnSync('git', args, { encoding: 'utf8' });

if (git('rev-parse', '--is-inside-work-tree').stdout.trim() !== 'true') {
  console.log('clean tree: not a git checkout, not checked');
  process.exit(0);
}
const status = git('status', '--porcelain', '--untracked-files=all');
if (status.status !== 0) {
  console.log(`clean tree: git status failed: ${status.stderr.trim()}`);
  process.exit(1);
}
const changed = status.stdout.split('\n').filter((line) => line.length > 0);
if (changed.length === 0) process.exit(0);
console.log(`clean tree: the run left ${changed.length} change(s) in the working tree:`);
for (const line of changed) console.log(`  ${line}`);
const stat = git('diff', '--stat').stdout.trimEnd();
if (stat) console.log(stat);
process.exit(1);
