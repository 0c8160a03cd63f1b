import { Module } from '@nestjs/common';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { SettingsModule } from '../settings/settings.module';
import { MapSettingsService } from './map-settings.service';
import { SitesController } from './sites.controller';
import { SitesRepository } from './sites.repository';
import { SitesService } from './sites.service';

/** Sites and the map settings (the security headers read the tile origins from it too). */
@Module({
  imports: [SettingsModule, SensorsStorageModule],
  controllers: [SitesController],
  providers: [SitesRepository, SitesService, MapSettingsService],
  exports: [SitesRepository, SitesService, MapSettingsService],
})
export class SitesModule {}
