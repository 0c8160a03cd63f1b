import { Module } from '@nestjs/common';
import { SessionsModule } from '../auth/sessions.module';
import { InstallationSecretsModule } from '../settings/installation-secrets.module';
import { LiveController } from './live.controller';
import { LiveHub } from './live-hub.service';
import { DEFAULT_LIVE_OPTIONS, LIVE_OPTIONS } from './live.options';

/** `GET /api/events`: the event bus's live kinds as Server-Sent Events. */
@Module({
  imports: [SessionsModule, InstallationSecretsModule],
  controllers: [LiveController],
  providers: [LiveHub, { provide: LIVE_OPTIONS, useFactory: () => ({ ...DEFAULT_LIVE_OPTIONS }) }],
  exports: [LiveHub],
})
export class LiveModule {}
