import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Command } from 'nest-commander';
import { createApp } from '../create-app';
import type { MonitorConfig } from '../core/config/monitor-config';
import { buildInfo } from '../core/build-info';
import { lockDataDirectory, type DataDirectoryLock } from '../core/database/data-directory-lock';
import { prepareSqliteDirectory } from '../core/database/open-database';
import { createLogger, type AppLogger } from '../core/logging/logger';
import { dropIdentity } from '../core/process/identity';
import { StartupError } from '../core/process/startup-error';
import { ConfigOptions, type ConfigFlagOptions } from './config-options';
import { exitWithError, loadConfigOrExit } from './fatal';

@Command({
  name: 'serve',
  description: 'run the monitor: HTTP server, scheduler and database',
  options: { isDefault: true },
})
export class ServeCommand extends ConfigOptions {
  async run(params: string[], flags: ConfigFlagOptions = {}): Promise<void> {
    // serve is the default command, so an unknown command name arrives here as an argument.
    if (params.length > 0) {
      exitWithError(
        `unknown command "${params[0]}": use serve, doctor, healthcheck, version or seed (see --help)`,
      );
    }
    const config = loadConfigOrExit(flags);
    const logger = createLogger(config.log_level);
    let app: NestFastifyApplication;
    let lock: DataDirectoryLock | null;
    try {
      dropIdentity(config, logger);
      lock = holdSqliteDirectory(config);
      app = await createApp(config, logger);
    } catch (error) {
      if (error instanceof StartupError) exitWithError(error.message, logger);
      throw error;
    }
    // Signal handlers go in before listening, so a SIGTERM right after start still shuts down cleanly.
    const stopped = waitForShutdown(app, logger);
    await listen(app, config, logger);
    await stopped;
    // Held until the database is closed, so the next process never finds it half written.
    lock?.release();
  }
}

/**
 * SQLite is single-instance: serve holds the data directory's lock for its whole life (taken after
 * the identity drop, so the file belongs to the user that runs). PostgreSQL instances share a database.
 */
function holdSqliteDirectory(config: MonitorConfig): DataDirectoryLock | null {
  if (config.database_url) return null;
  prepareSqliteDirectory(config.data_dir);
  return lockDataDirectory(config.data_dir);
}

async function listen(app: NestFastifyApplication, config: MonitorConfig, logger: AppLogger): Promise<void> {
  const { host, port } = config.listen;
  try {
    await app.listen({ host, port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const reason =
      code === 'EADDRINUSE'
        ? 'the port is already in use (is another copy of monitor running?)'
        : code === 'EACCES'
          ? 'permission denied (ports below 1024 need privileges)'
          : code === 'EADDRNOTAVAIL'
            ? 'no such address on this machine'
            : (error as Error).message;
    await app.close().catch(() => undefined);
    exitWithError(`cannot listen on ${where}: ${reason}`, logger);
  }
  const address = app.getHttpServer().address();
  const bound = typeof address === 'object' && address ? address : { address: host, port };
  const shownHost = bound.address.includes(':') ? `[${bound.address}]` : bound.address;
  logger.info(
    { url: `http://${shownHost}:${bound.port}`, data_dir: config.data_dir, version: buildInfo().version },
    'listening',
  );
}

/** SIGTERM/SIGINT: stop accepting, let in-flight requests and writes finish, close the database. */
function waitForShutdown(app: NestFastifyApplication, logger: AppLogger): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn({ signal }, 'second signal: exiting without waiting');
        process.exit(1);
      }
      stopping = true;
      logger.info({ signal }, 'shutting down');
      app
        .close()
        .then(() => {
          logger.info('stopped');
          resolve();
        })
        .catch((error: unknown) => {
          logger.error({ error: (error as Error).message }, 'shutdown failed');
          process.exit(1);
        });
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
