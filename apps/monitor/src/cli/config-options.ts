import { CommandRunner, Option } from 'nest-commander';
import type { ConfigFlags } from '../core/config/config.resolve';

/** The configuration flags shared by serve, doctor and healthcheck. */
export abstract class ConfigOptions extends CommandRunner {
  @Option({ flags: '--listen <host:port>', description: 'address to listen on (default 0.0.0.0:8080)' })
  parseListen(value: string): string {
    return value;
  }

  @Option({ flags: '--data-dir <dir>', description: 'data directory (default ./data)' })
  parseDataDir(value: string): string {
    return value;
  }

  @Option({
    flags: '--database-url <url>',
    description: 'postgres:// URL of a PostgreSQL database (default: SQLite in the data directory)',
  })
  parseDatabaseUrl(value: string): string {
    return value;
  }

  @Option({ flags: '--config <file>', description: 'YAML configuration file' })
  parseConfig(value: string): string {
    return value;
  }

  @Option({ flags: '--log-level <level>', description: 'debug, info, warn or error (default info)' })
  parseLogLevel(value: string): string {
    return value;
  }
}

export type ConfigFlagOptions = ConfigFlags;
