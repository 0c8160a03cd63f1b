import { Global, Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MapSettingsService } from './map-settings.service';
import { SitesController } from './sites.controller';
import { SitesService } from './sites.service';

/**
 * Sites and the map settings. Global so that other features (the summary, later backup and
 * sample data) can read sites without importing this module, and so the security headers can
 * read the tile origins.
 */
@Global()
@Module({
  imports: [AuthModule],
  controllers: [SitesController],
  providers: [SitesService, MapSettingsService],
  exports: [SitesService, MapSettingsService],
})
export class SitesModule {}
