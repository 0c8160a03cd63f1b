import { Module } from '@nestjs/common';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { PushController } from './push.controller';
import { PushService } from './push.service';

/** The push URLs of push sensors (GET or POST /api/push/{token}). */
@Module({
  imports: [SchedulerModule],
  controllers: [PushController],
  providers: [PushService],
})
export class PushModule {}
