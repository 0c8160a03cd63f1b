import { Module } from '@nestjs/common';
import { IncidentsModule } from '../incidents/incidents.module';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { SearchController } from './search.controller';
import { SearchRepository } from './search.repository';
import { SearchService } from './search.service';

/** GET /api/search: one query over sensors, sites, channels, incidents, recent results and accounts. */
@Module({
  imports: [IncidentsModule, SchedulerModule],
  controllers: [SearchController],
  providers: [SearchService, SearchRepository],
})
export class SearchModule {}
