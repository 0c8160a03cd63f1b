import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock/clock';
import { MONITOR_CONFIG } from './config/config.tokens';
import { EventBus } from './events/event-bus';
import type { MonitorConfig } from './config/monitor-config';
import { APP_LOGGER } from './logging/logging.tokens';
import type { AppLogger } from './logging/logger';
import { ProcessMetrics } from './metrics/process-metrics';
import { INSTANCE_IDENTITY, instanceIdentity } from './process/instance-identity';
import { RUN_OPTIONS, type RunOptions } from './process/run-options';

/**
 * The configuration, the logger, the clock, the event bus, the process's metrics and how this
 * process runs, available to every feature module.
 */
@Global()
@Module({})
export class CoreModule {
  static forRoot(
    config: MonitorConfig,
    logger: AppLogger,
    clock: Clock = new SystemClock(),
    run: RunOptions = { startScheduler: true },
  ): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: MONITOR_CONFIG, useValue: config },
        { provide: APP_LOGGER, useValue: logger },
        { provide: Clock, useValue: clock },
        { provide: RUN_OPTIONS, useValue: run },
        { provide: INSTANCE_IDENTITY, useValue: instanceIdentity(config) },
        EventBus,
        ProcessMetrics,
      ],
      exports: [MONITOR_CONFIG, APP_LOGGER, Clock, EventBus, RUN_OPTIONS, INSTANCE_IDENTITY, ProcessMetrics],
    };
  }
}
