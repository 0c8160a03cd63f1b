import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ChannelsModule } from '../channels/channels.module';
import { BackupController } from './backup.controller';
import { BackupService } from './backup.service';
import { RestoreService } from './restore.service';

/** GET /api/backup and POST /api/restore: the installation as one JSON document, and back. */
@Module({
  imports: [AuthModule, ChannelsModule],
  controllers: [BackupController],
  providers: [BackupService, RestoreService],
})
export class BackupModule {}
