import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LiveController } from './live.controller';
import { LiveHub } from './live-hub.service';
import { DEFAULT_LIVE_OPTIONS, LIVE_OPTIONS } from './live.options';

/** `GET /api/events`: the event bus's live kinds as Server-Sent Events. */
@Module({
  imports: [AuthModule],
  controllers: [LiveController],
  providers: [LiveHub, { provide: LIVE_OPTIONS, useFactory: () => ({ ...DEFAULT_LIVE_OPTIONS }) }],
  exports: [LiveHub],
})
export class LiveModule {}
