import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { HistoryModule } from '../history/history.module';
import { IncidentsModule } from '../incidents/incidents.module';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { SitesModule } from '../sites/sites.module';
import { SensorReferences } from './sensor-references';
import { SensorSummaryService } from './sensor-summary.service';
import { SensorsStorageModule } from './sensors-storage.module';
import { SensorsController } from './sensors.controller';
import { SensorsService } from './sensors.service';

@Module({
  imports: [
    SensorsStorageModule,
    SchedulerModule,
    HistoryModule,
    MaintenanceModule,
    SitesModule,
    ChannelsModule,
    IncidentsModule,
  ],
  controllers: [SensorsController],
  providers: [SensorsService, SensorReferences, SensorSummaryService],
  exports: [SensorsService, SensorsStorageModule],
})
export class SensorsModule {}
