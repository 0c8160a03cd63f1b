import { Module } from '@nestjs/common';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { DoctorController } from './doctor.controller';
import { DoctorService } from './doctor.service';

/** The self-check over HTTP. */
@Module({
  imports: [SchedulerModule, SensorsStorageModule],
  controllers: [DoctorController],
  providers: [DoctorService],
})
export class DoctorModule {}
