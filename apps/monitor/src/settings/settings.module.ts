import { Module } from '@nestjs/common';
import { HistoryModule } from '../history/history.module';
import { IncidentsStorageModule } from '../incidents/incidents-storage.module';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { UsersModule } from '../users/users.module';
import { InstallationSecretsModule } from './installation-secrets.module';
import { SettingsController } from './settings.controller';
import { SettingsService } from './settings.service';
import { SettingsStorageModule } from './settings-storage.module';

@Module({
  imports: [
    SettingsStorageModule,
    InstallationSecretsModule,
    UsersModule,
    HistoryModule,
    SensorsStorageModule,
    IncidentsStorageModule,
  ],
  controllers: [SettingsController],
  providers: [SettingsService],
  exports: [SettingsService, SettingsStorageModule],
})
export class SettingsModule {}
