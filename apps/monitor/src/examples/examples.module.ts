import { ClusterModule } from '../cluster/cluster.module';
import { Module } from '@nestjs/common';
import { HistoryModule } from '../history/history.module';
import { IncidentsStorageModule } from '../incidents/incidents-storage.module';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { SitesModule } from '../sites/sites.module';
import { ExamplesController } from './examples.controller';
import { ExamplesService } from './examples.service';

/** Sample data: load, count and remove. */
@Module({
  imports: [
    ClusterModule,
    SchedulerModule,
    HistoryModule,
    SensorsStorageModule,
    SitesModule,
    IncidentsStorageModule,
  ],
  controllers: [ExamplesController],
  providers: [ExamplesService],
  exports: [ExamplesService],
})
export class ExamplesModule {}
