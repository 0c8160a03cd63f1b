import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntitySchema, MixedList } from 'typeorm';
import { MONITOR_CONFIG } from '../config/config.tokens';
import type { MonitorConfig } from '../config/monitor-config';
import { APP_LOGGER } from '../logging/logging.tokens';
import type { AppLogger } from '../logging/logger';
import { openDatabase, prepareDataDirectory } from './open-database';
import { DatabaseFile } from './database-file';
import { DatabaseProbe } from './database-probe';
import { openPostgres } from './open-postgres';
import { trigramsInstalled } from './migrations/1764000000003-api-filter-indexes';
import { StorageHealth } from './storage-health';
import { StorageRecovery } from './storage-recovery';
import { UnitOfWork } from './unit-of-work';

/**
 * Closes the database last. Writers that buffer (the result writer) register a final flush here,
 * which runs after the HTTP server has drained and before the connection closes.
 */
@Injectable()
export class DatabaseLifecycle implements OnApplicationShutdown {
  private readonly finalWrites: (() => void | Promise<void>)[] = [];
  private readonly lastWords: (() => Promise<void>)[] = [];
  /** True once shutdown began: the final writes run now, whatever backoff a writer is in. */
  closing = false;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  beforeClose(write: () => void | Promise<void>): void {
    this.finalWrites.push(write);
  }

  /** Runs after every final write (leaving the cluster must come after the last results are stored). */
  afterFinalWrites(work: () => Promise<void>): void {
    this.lastWords.push(work);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.dataSource.isInitialized) return;
    this.closing = true;
    for (const write of this.finalWrites) await write();
    for (const work of this.lastWords) await work().catch(() => undefined);
    await this.dataSource.destroy();
    this.logger.info('database closed');
  }
}

/** Said once at start when the text searches have no trigram indexes (see migration 1764000000003). */
export const TRIGRAMS_MISSING =
  'text search without trigram indexes: the pg_trgm extension is not installed in this database and could not be installed by this role; incident and result searches stay correct but read every row (a superuser can run CREATE EXTENSION pg_trgm; the indexes are built at the next start)';

@Global()
@Module({})
export class DatabaseModule {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  static forRoot(entities: MixedList<Function | string | EntitySchema>): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: DataSource,
          inject: [MONITOR_CONFIG, StorageHealth, APP_LOGGER],
          useFactory: async (config: MonitorConfig, health: StorageHealth, logger: AppLogger) => {
            if (!config.database_url) return openDatabase(config.data_dir, entities, health);
            prepareDataDirectory(config.data_dir);
            const dataSource = await openPostgres(config.database_url, entities);
            if (!(await trigramsInstalled((sql) => dataSource.query(sql)))) logger.warn(TRIGRAMS_MISSING);
            return dataSource;
          },
        },
        DatabaseLifecycle,
        StorageHealth,
        UnitOfWork,
        DatabaseProbe,
        DatabaseFile,
        StorageRecovery,
      ],
      exports: [DataSource, DatabaseLifecycle, StorageHealth, UnitOfWork, DatabaseProbe, DatabaseFile],
    };
  }
}
