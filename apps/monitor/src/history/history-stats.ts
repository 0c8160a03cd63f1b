import { Injectable } from '@nestjs/common';
import { HOUR_MS } from '@monitor/domain';
import { SensorsRepository } from '../sensors/sensors.repository';
import { HistoryRepository } from './history.repository';
import { RollupMaintenance } from './rollup-maintenance.service';

export interface ResultStats {
  count: number;
  oldest: number | null;
  newest: number | null;
}

/**
 * How many raw results are stored, without walking millions of rows: per sensor, the hours the
 * maintenance pass has summarised are counted from their hourly buckets (each holds exactly that
 * hour's results), and only the partial first hour and what came after the last pass are counted
 * row by row.
 */
@Injectable()
export class HistoryStats {
  constructor(
    private readonly history: HistoryRepository,
    private readonly sensors: SensorsRepository,
    private readonly rollups: RollupMaintenance,
  ) {}

  async results(): Promise<ResultStats> {
    const h = this.history;
    const through = (await this.rollups.watermarks()).hourlyThrough;
    const stats: ResultStats = { count: 0, oldest: null, newest: null };
    for (const id of await this.sensors.ids()) {
      const span = await h.resultSpan(id);
      if (!span) continue;
      const { first, last } = span;
      stats.oldest = Math.min(stats.oldest ?? first, first);
      stats.newest = Math.max(stats.newest ?? last, last);
      const fullHours = Math.ceil(first / HOUR_MS) * HOUR_MS;
      if (through === null || fullHours >= through) {
        stats.count += await h.countRows(id, first, Number.MAX_SAFE_INTEGER);
      } else {
        stats.count +=
          (await h.countRows(id, first, fullHours)) +
          (await h.countSummarised(id, fullHours, through)) +
          (await h.countRows(id, through, Number.MAX_SAFE_INTEGER));
      }
    }
    return stats;
  }
}
