import { Module } from '@nestjs/common';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { IncidentsStorageModule } from './incidents-storage.module';
import { IncidentsController } from './incidents.controller';
import { IncidentsService } from './incidents.service';
import { SensorIncidentsController } from './sensor-incidents.controller';

@Module({
  imports: [IncidentsStorageModule, SensorsStorageModule, SchedulerModule],
  controllers: [IncidentsController, SensorIncidentsController],
  providers: [IncidentsService],
  exports: [IncidentsService, IncidentsStorageModule],
})
export class IncidentsModule {}
