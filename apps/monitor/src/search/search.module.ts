import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { HistoryModule } from '../history/history.module';
import { IncidentsModule } from '../incidents/incidents.module';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { SitesModule } from '../sites/sites.module';
import { UsersStorageModule } from '../users/users-storage.module';
import { SearchController } from './search.controller';
import { SearchService } from './search.service';

/**
 * GET /api/search: one query over sensors, sites, channels, incidents, recent results and
 * accounts, each asked of the feature that owns it.
 */
@Module({
  imports: [
    SensorsStorageModule,
    SitesModule,
    ChannelsModule,
    IncidentsModule,
    HistoryModule,
    UsersStorageModule,
    SchedulerModule,
  ],
  controllers: [SearchController],
  providers: [SearchService],
})
export class SearchModule {}
