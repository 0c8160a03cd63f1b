import { Module } from '@nestjs/common';
import { ClusterModule } from '../cluster/cluster.module';
import { IncidentsStorageModule } from '../incidents/incidents-storage.module';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { SettingsStorageModule } from '../settings/settings-storage.module';
import { HistoryController } from './history.controller';
import { HistoryRepository } from './history.repository';
import { HistoryStats } from './history-stats';
import { HistoryService } from './history.service';
import { ResultWriter } from './result-writer.service';
import { RollupMaintenance } from './rollup-maintenance.service';

/** Probe results, their hourly and daily rollups, retention, and the history reads. */
@Module({
  imports: [ClusterModule, SensorsStorageModule, IncidentsStorageModule, SettingsStorageModule],
  controllers: [HistoryController],
  providers: [HistoryRepository, ResultWriter, RollupMaintenance, HistoryService, HistoryStats],
  exports: [HistoryRepository, ResultWriter, RollupMaintenance, HistoryStats, HistoryService],
})
export class HistoryModule {}
