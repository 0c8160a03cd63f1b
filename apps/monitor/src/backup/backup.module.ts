import { Module } from '@nestjs/common';
import { SessionsModule } from '../auth/sessions.module';
import { ChannelsModule } from '../channels/channels.module';
import { BackupConnections } from '../core/database/backup-connections';
import { HistoryModule } from '../history/history.module';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { InstallationSecretsModule } from '../settings/installation-secrets.module';
import { SitesModule } from '../sites/sites.module';
import { BackupController } from './backup.controller';
import { BackupService } from './backup.service';
import { RestoreService } from './restore.service';

/** GET /api/backup and POST /api/restore: the installation as one JSON document, and back. */
@Module({
  imports: [
    InstallationSecretsModule,
    ChannelsModule,
    HistoryModule,
    MaintenanceModule,
    SchedulerModule,
    SensorsStorageModule,
    SessionsModule,
    SitesModule,
  ],
  controllers: [BackupController],
  providers: [BackupConnections, BackupService, RestoreService],
})
export class BackupModule {}
