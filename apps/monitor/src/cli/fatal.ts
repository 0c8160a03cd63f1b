import { loadConfig } from '../core/config/config.loader';
import type { ConfigFlags } from '../core/config/config.resolve';
import { ConfigError, type MonitorConfig } from '../core/config/monitor-config';
import { createLogger, type AppLogger } from '../core/logging/logger';

/** Writes the one line that explains why the process stops, then exits non-zero. */
export function exitWithError(message: string, logger: AppLogger = createLogger('info')): never {
  logger.error(message);
  process.exit(1);
}

/** The configuration the flags, the environment and the file give; a refused one stops the process. */
export function loadConfigOrExit(flags: ConfigFlags): MonitorConfig {
  try {
    return loadConfig(flags);
  } catch (error) {
    if (error instanceof ConfigError) exitWithError(error.message);
    throw error;
  }
}
