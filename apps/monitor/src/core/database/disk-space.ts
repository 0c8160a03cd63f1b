import * as fs from 'node:fs';
import * as path from 'node:path';
import { classifyStorageError } from './storage-errors';

/**
 * SQLite's write-ahead log is bounded: a checkpoint every 256 pages (1 MiB at 4 KiB pages) and
 * the file cut back to 1 MiB after each. Unbounded (8,000 pages) it grew to 32 MiB between
 * checkpoints and swallowed whatever space an operator freed on a full disk.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 256;
export const WAL_SIZE_LIMIT_BYTES = 1 << 20;
/**
 * Free bytes a full disk must have again before storage counts as recovered: one log's worth, so
 * the writes that follow do not fill it again at once (a spell does not end on a write that fit
 * in the last few kilobytes).
 */
export const ROOM_TO_RECOVER_BYTES = WAL_SIZE_LIMIT_BYTES;

/**
 * Bytes an unprivileged writer may still use on the file system holding `target` (or its nearest
 * existing parent: a data directory not yet created); null if unknown.
 */
export function freeBytes(target: string): number | null {
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    try {
      const stats = fs.statfsSync(dir);
      return stats.bavail * stats.bsize;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dir === path.dirname(dir)) return null;
    }
  }
}

/** Whether the file system holding `path` has room for storage to count as recovered. */
export function hasRoomToRecover(path: string): boolean {
  const free = freeBytes(path);
  return free === null || free >= ROOM_TO_RECOVER_BYTES;
}

/**
 * The start's one line when a failure to open or lock comes from a full disk (SQLITE_FULL, ENOSPC,
 * or an I/O error while less than a log's worth is free), else null.
 */
export function noSpaceText(file: string, dir: string, error: unknown): string | null {
  const failure = classifyStorageError(error);
  const errno = (error as { code?: unknown } | null)?.code;
  const free = freeBytes(dir);
  const full = failure?.status === 507 || errno === 'ENOSPC' || errno === 'EDQUOT';
  // SQLite reports some writes a full disk refused as I/O errors (the shared-memory file).
  const starved =
    failure !== null &&
    /^SQLITE_(IOERR|CANTOPEN|FULL)/.test(failure.code) &&
    free !== null &&
    free < ROOM_TO_RECOVER_BYTES;
  if (!full && !starved) return null;
  const shown = free === null ? 'an unknown number of' : String(free);
  return `no space left for database ${file}: ${shown} bytes free on its file system; free some space (at least ${ROOM_TO_RECOVER_BYTES} bytes) and start again`;
}
