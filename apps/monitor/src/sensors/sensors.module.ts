import { Module } from '@nestjs/common';
import { IncidentsModule } from '../incidents/incidents.module';
import { SensorsController } from './sensors.controller';
import { SensorsService } from './sensors.service';

@Module({ imports: [IncidentsModule], controllers: [SensorsController], providers: [SensorsService] })
export class SensorsModule {}
