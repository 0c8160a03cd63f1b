import { Module } from '@nestjs/common';
import { HistoryModule } from '../history/history.module';
import { IncidentsStorageModule } from '../incidents/incidents-storage.module';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { SensorsModule } from '../sensors/sensors.module';
import { StatusPagesModule } from '../status-pages/status-pages.module';
import { PublicStatusController } from './public-status.controller';
import { PublicStatusService } from './public-status.service';

/** Published status pages, their JSON and badges, for anyone (no authentication). */
@Module({
  imports: [StatusPagesModule, SensorsModule, HistoryModule, IncidentsStorageModule, MaintenanceModule],
  controllers: [PublicStatusController],
  providers: [PublicStatusService],
})
export class PublicStatusModule {}
