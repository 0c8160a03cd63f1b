import * as fs from 'node:fs';
import * as path from 'node:path';
import { DATABASE_FILE } from './database-path';

/**
 * The data directory and the files in it that hold the session-signing secret and every stored
 * credential (the database, its WAL and shared memory, restore safety copies and upload spools)
 * are the process owner's alone, whatever the umask.
 */
export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Our files in the data directory: monitor.db and SQLite's companions of it (-wal, -shm,
 * -journal), the safety copies `monitor.db.before-restore-*` and `monitor-before-restore-*.json`,
 * and the restore's upload spool `.monitor.db.restore-upload-*`. (monitor.lock holds a pid only.)
 */
export function isPrivateDataFile(name: string): boolean {
  return (
    name.startsWith(DATABASE_FILE) ||
    name.startsWith(`.${DATABASE_FILE}.`) ||
    name.startsWith('monitor-before-restore-')
  );
}

/**
 * Creates the directory 0700 (missing parents as usual: after the identity drop PUID must still
 * reach it through them); an existing directory keeps its mode.
 */
export function makePrivateDirectory(dir: string): void {
  fs.mkdirSync(path.dirname(path.resolve(dir)), { recursive: true });
  try {
    fs.mkdirSync(dir, { mode: PRIVATE_DIRECTORY_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && fs.statSync(dir).isDirectory()) return;
    throw error;
  }
  // The umask may have taken bits away (an umask of 0200 would leave it unwritable).
  fs.chmodSync(dir, PRIVATE_DIRECTORY_MODE);
}

/** Creates an empty file 0600 whatever the umask; fails when it exists. */
export function createPrivateFile(file: string): void {
  const fd = fs.openSync(file, 'wx', PRIVATE_FILE_MODE);
  try {
    fs.fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Takes group and other permissions off our files in the data directory (a database created by
 * an earlier version, or under a permissive umask). Symbolic links are left alone, never followed.
 * Answers the names it changed.
 */
export function tightenPrivateFiles(dataDir: string): string[] {
  const changed: string[] = [];
  for (const entry of fs.readdirSync(dataDir, { withFileTypes: true })) {
    if (!entry.isFile() || !isPrivateDataFile(entry.name)) continue;
    const file = path.join(dataDir, entry.name);
    try {
      const mode = fs.lstatSync(file).mode & 0o777;
      if ((mode & 0o077) === 0) continue;
      fs.chmodSync(file, mode & PRIVATE_FILE_MODE);
      changed.push(entry.name);
    } catch (error) {
      // Removed meanwhile (a finished restore's spool): nothing left to protect.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return changed;
}
