import { Module } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module';
import { MapSettingsService } from './map-settings.service';
import { SitesController } from './sites.controller';
import { SitesService } from './sites.service';

/** Sites and the map settings (the security headers read the tile origins from it too). */
@Module({
  imports: [SettingsModule],
  controllers: [SitesController],
  providers: [SitesService, MapSettingsService],
  exports: [SitesService, MapSettingsService],
})
export class SitesModule {}
