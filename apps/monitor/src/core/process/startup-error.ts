/** A reason the process cannot start, already worded as the one line the operator reads. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** "as uid 1000" when the platform can tell. */
export const currentUidText = (): string =>
  typeof process.getuid === 'function' ? ` as uid ${process.getuid()}` : '';

export function describeErrno(error: unknown): string {
  const err = error as NodeJS.ErrnoException;
  const reasons: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on device',
    ENOTDIR: 'a path component is not a directory',
    ENOENT: 'no such file or directory',
    EEXIST: 'a file is in the way',
    EISDIR: 'is a directory',
  };
  if (err?.code && reasons[err.code]) return `${reasons[err.code]} (${err.code})`;
  if (err?.code) return err.code;
  return err instanceof Error ? err.message.split('\n')[0] : String(error);
}
