import { Injectable } from '@nestjs/common';
import { SensorsRepository } from '../sensors/sensors.repository';
import type { ResultStats } from './history.sql';
import { HistoryRepository } from './history.repository';
import { RollupMaintenance } from './rollup-maintenance.service';

/** How many raw results are stored, oldest and newest (see resultStats), for the settings' stats. */
@Injectable()
export class HistoryStats {
  constructor(
    private readonly history: HistoryRepository,
    private readonly sensors: SensorsRepository,
    private readonly rollups: RollupMaintenance,
  ) {}

  async results(): Promise<ResultStats> {
    const through = (await this.rollups.watermarks()).hourlyThrough;
    return this.history.resultStats(await this.sensors.ids(), through);
  }
}
