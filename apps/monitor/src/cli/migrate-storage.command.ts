import { Command, Option } from 'nest-commander';
import type { MonitorConfig } from '../core/config/monitor-config';
import {
  copyDatabase,
  CopyRefusedError,
  openStorage,
  type OpenedStorage,
} from '../core/database/copy-database';
import { databasePath } from '../core/database/database-path';
import { maskDatabaseUrl, parsePostgresUrl } from '../core/config/database-url';
import { createLogger } from '../core/logging/logger';
import { dropIdentity } from '../core/process/identity';
import { StartupError } from '../core/process/startup-error';
import { ConfigOptions, type ConfigFlagOptions } from './config-options';
import { exitWithError, loadConfigOrExit } from './fatal';

type Flags = ConfigFlagOptions & { to?: string; from?: string };

/** One side of the copy: the configured storage, or the database named on the command line. */
interface Storage {
  label: string;
  open(): Promise<OpenedStorage>;
}

@Command({
  name: 'migrate-storage',
  description:
    'copy everything from the configured storage into an empty PostgreSQL database (--to <url>), or from one into the configured storage (--from <url>)',
})
export class MigrateStorageCommand extends ConfigOptions {
  async run(_params: string[], flags: Flags = {}): Promise<void> {
    const other = flags.to ?? flags.from;
    if (!other || (flags.to && flags.from))
      exitWithError('migrate-storage needs exactly one of --to <url> and --from <url>');
    if (!parsePostgresUrl(other))
      exitWithError(`${flags.to ? '--to' : '--from'} must be a postgres:// or postgresql:// URL with a host`);
    const config = loadConfigOrExit(flags);
    const logger = createLogger(config.log_level);
    const configured = configuredStorage(config);
    const named: Storage = { label: maskDatabaseUrl(other), open: () => openStorage({ url: other }) };
    if (config.database_url && config.database_url.trim() === other.trim())
      exitWithError('the configured storage and the named database are the same');
    const [source, target] = flags.to ? [configured, named] : [named, configured];

    let from: OpenedStorage | undefined;
    let to: OpenedStorage | undefined;
    try {
      dropIdentity(config, logger);
      from = await source.open();
      to = await target.open();
      process.stdout.write(`copying ${source.label} → ${target.label}\n`);
      const report = await copyDatabase(from.client, to.client, (table, rows) =>
        process.stdout.write(`  ${table}: ${rows} rows\n`),
      );
      const rows = report.tables.reduce((sum, t) => sum + t.rows, 0);
      process.stdout.write(
        `copied ${rows} rows in ${report.tables.length} tables; the row counts match. ${nextStep(config, flags, other)}\n`,
      );
    } catch (error) {
      if (error instanceof StartupError || error instanceof CopyRefusedError)
        exitWithError(`migrate-storage: ${error.message}; nothing was copied`, logger);
      exitWithError(
        `migrate-storage failed: ${(error as Error).message.split('\n')[0]}; the target was left as it was`,
        logger,
      );
    } finally {
      await from?.close().catch(() => undefined);
      await to?.close().catch(() => undefined);
    }
  }

  @Option({
    flags: '--to <url>',
    description: 'an empty PostgreSQL database to copy the configured storage into',
  })
  parseTo(value: string): string {
    return value;
  }

  @Option({
    flags: '--from <url>',
    description: 'a PostgreSQL database to copy into the (empty) configured storage',
  })
  parseFrom(value: string): string {
    return value;
  }
}

function configuredStorage(config: MonitorConfig): Storage {
  const url = config.database_url;
  if (url) return { label: maskDatabaseUrl(url), open: () => openStorage({ url }) };
  return { label: databasePath(config.data_dir), open: () => openStorage({ dataDir: config.data_dir }) };
}

/** What the operator changes so that the monitor uses the copy. */
function nextStep(config: MonitorConfig, flags: Flags, other: string): string {
  if (flags.to) {
    return `To run on it, set database_url: ${maskDatabaseUrl(other)} in the configuration file (or MONITOR_DATABASE_URL, or --database-url) and restart the monitor; the source was left as it was.`;
  }
  if (config.database_url)
    return 'The configured database holds the copy now; the source was left as it was.';
  return `To run on it, remove database_url from the configuration file (and MONITOR_DATABASE_URL, --database-url) so the monitor uses ${databasePath(config.data_dir)}; the source was left as it was.`;
}
