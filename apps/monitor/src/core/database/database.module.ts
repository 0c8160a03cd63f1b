import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntitySchema, MixedList } from 'typeorm';
import { MONITOR_CONFIG } from '../config/config.tokens';
import type { MonitorConfig } from '../config/monitor-config';
import { APP_LOGGER } from '../logging/logging.tokens';
import type { AppLogger } from '../logging/logger';
import { openDatabase } from './open-database';

@Injectable()
class DatabaseCloser implements OnApplicationShutdown {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** Runs after the HTTP server has drained, so no request is still writing. */
  async onApplicationShutdown(): Promise<void> {
    if (!this.dataSource.isInitialized) return;
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
          inject: [MONITOR_CONFIG],
          useFactory: (config: MonitorConfig) => openDatabase(config.data_dir, entities),
        },
        DatabaseCloser,
      ],
      exports: [DataSource],
    };
  }
}
