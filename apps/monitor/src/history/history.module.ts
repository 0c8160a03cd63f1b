import { Module } from '@nestjs/common';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { HistoryController } from './history.controller';
import { HistoryStats } from './history-stats';
import { HistoryService } from './history.service';
import { ResultWriter } from './result-writer.service';
import { RollupMaintenance } from './rollup-maintenance.service';

/** Probe results, their hourly and daily rollups, retention, and the history reads. */
@Module({
  imports: [SensorsStorageModule],
  controllers: [HistoryController],
  providers: [ResultWriter, RollupMaintenance, HistoryService, HistoryStats],
  exports: [ResultWriter, RollupMaintenance, HistoryStats, HistoryService],
})
export class HistoryModule {}
