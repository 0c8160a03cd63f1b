import { createLogger, type AppLogger } from '../core/logging/logger';

/** Writes the one line that explains why the process stops, then exits non-zero. */
export function exitWithError(message: string, logger: AppLogger = createLogger('info')): never {
  logger.error(message);
  process.exit(1);
}
