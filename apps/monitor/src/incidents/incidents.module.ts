import { Module } from '@nestjs/common';
import { IncidentsController } from './incidents.controller';
import { IncidentsService } from './incidents.service';
import { SensorIncidentsController } from './sensor-incidents.controller';

@Module({
  controllers: [IncidentsController, SensorIncidentsController],
  providers: [IncidentsService],
  exports: [IncidentsService],
})
export class IncidentsModule {}
