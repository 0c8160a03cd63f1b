import { ClusterModule } from '../cluster/cluster.module';
import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { SitesModule } from '../sites/sites.module';
import { StatusPagesModule } from '../status-pages/status-pages.module';
import { DeclaredConfigSync } from './declared-config.service';

/** Sites, channels, sensors, maintenance windows and status pages declared in the configuration file. */
@Module({
  imports: [
    ClusterModule,
    SitesModule,
    ChannelsModule,
    SensorsStorageModule,
    MaintenanceModule,
    SchedulerModule,
    StatusPagesModule,
  ],
  providers: [DeclaredConfigSync],
})
export class DeclaredModule {}
