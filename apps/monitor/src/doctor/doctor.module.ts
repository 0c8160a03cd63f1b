import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { ClusterSyncModule } from '../cluster/cluster-sync.module';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { DoctorController } from './doctor.controller';
import { DoctorService } from './doctor.service';

/** The self-check over HTTP. */
@Module({
  imports: [SchedulerModule, SensorsStorageModule, ChannelsModule, ClusterSyncModule],
  controllers: [DoctorController],
  providers: [DoctorService],
})
export class DoctorModule {}
