import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { ENTITIES } from './app.entities';
import { Clock } from './core/clock/clock';
import type { MonitorConfig } from './core/config/monitor-config';
import { CoreModule } from './core/core.module';
import { DatabaseModule } from './core/database/database.module';
import type { AppLogger } from './core/logging/logger';
import { AuthModule } from './auth/auth.module';
import { BackupModule } from './backup/backup.module';
import { ChannelsModule } from './channels/channels.module';
import { HealthModule } from './health/health.module';
import { IncidentsModule } from './incidents/incidents.module';
import { LiveModule } from './live/live.module';
import { MetricsModule } from './metrics/metrics.module';
import { SchedulerModule } from './scheduler/scheduler.module';
import { ClusterSyncModule } from './cluster/cluster-sync.module';
import { DeclaredModule } from './declared/declared.module';
import { ExamplesModule } from './examples/examples.module';
import { SearchModule } from './search/search.module';
import { SensorsModule } from './sensors/sensors.module';
import { SettingsModule } from './settings/settings.module';
import { SitesModule } from './sites/sites.module';
import { StatusPagesModule } from './status-pages/status-pages.module';
import { PublicStatusModule } from './public-status/public-status.module';
import { PushModule } from './push/push.module';
import { DoctorModule } from './doctor/doctor.module';
import { UsersModule } from './users/users.module';

@Module({})
export class AppModule {
  static forRoot(
    config: MonitorConfig,
    logger: AppLogger,
    options: { clock?: Clock; imports?: ModuleMetadata['imports']; startScheduler?: boolean } = {},
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, logger, options.clock, { startScheduler: options.startScheduler ?? true }),
        DatabaseModule.forRoot(ENTITIES),
        AuthModule,
        HealthModule,
        UsersModule,
        SettingsModule,
        SchedulerModule,
        ClusterSyncModule,
        IncidentsModule,
        SensorsModule,
        PushModule,
        ChannelsModule,
        SearchModule,
        LiveModule,
        MetricsModule,
        SitesModule,
        StatusPagesModule,
        PublicStatusModule,
        DoctorModule,
        ExamplesModule,
        DeclaredModule,
        BackupModule,
        ...(options.imports ?? []),
      ],
    };
  }
}
