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
import { StorageHealth } from './storage-health';
import { UnitOfWork } from './unit-of-work';

/**
 * Closes the database last. Writers that buffer (the result writer) register a final flush here,
 * which runs after the HTTP server has drained and before the connection closes.
 */
@Injectable()
export class DatabaseLifecycle implements OnApplicationShutdown {
  private readonly finalWrites: (() => void | Promise<void>)[] = [];
  /** True once shutdown began: the final writes run now, whatever backoff a writer is in. */
  closing = false;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  beforeClose(write: () => void | Promise<void>): void {
    this.finalWrites.push(write);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.dataSource.isInitialized) return;
    this.closing = true;
    for (const write of this.finalWrites) await write();
    await this.dataSource.destroy();
    this.logger.info('database closed');
  }
}

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
          inject: [MONITOR_CONFIG, StorageHealth],
          useFactory: (config: MonitorConfig, health: StorageHealth) => {
            if (!config.database_url) return openDatabase(config.data_dir, entities, health);
            prepareDataDirectory(config.data_dir);
            return openPostgres(config.database_url, entities);
          },
        },
        DatabaseLifecycle,
        StorageHealth,
        UnitOfWork,
        DatabaseProbe,
        DatabaseFile,
      ],
      exports: [DataSource, DatabaseLifecycle, StorageHealth, UnitOfWork, DatabaseProbe, DatabaseFile],
    };
  }
}
