import { Module } from '@nestjs/common';
import { HistoryModule } from '../history/history.module';
import { UsersModule } from '../users/users.module';
import { InstallationSecretsModule } from './installation-secrets.module';
import { SettingsController } from './settings.controller';
import { SettingsService } from './settings.service';
import { SettingsStore } from './settings.store';

@Module({
  imports: [InstallationSecretsModule, UsersModule, HistoryModule],
  controllers: [SettingsController],
  providers: [SettingsStore, SettingsService],
  exports: [SettingsStore, SettingsService],
})
export class SettingsModule {}
