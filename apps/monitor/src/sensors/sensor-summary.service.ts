import { Injectable } from '@nestjs/common';
import type { Site, SummarySensor } from '@monitor/contracts';
import { HistoryService } from '../history/history.service';
import { SitesService } from '../sites/sites.service';
import { SensorScheduling } from './sensor-scheduling';
import { SensorsService } from './sensors.service';

/** GET /api/summary: the sensors with what the status list shows beside each, and the sites. */
@Injectable()
export class SensorSummaryService {
  constructor(
    private readonly sensors: SensorsService,
    private readonly history: HistoryService,
    private readonly scheduling: SensorScheduling,
    private readonly siteList: SitesService,
  ) {}

  /** The list with its last day's uptime and latest outcomes beside each sensor. */
  async summaryList(): Promise<SummarySensor[]> {
    const sensors = await this.sensors.list();
    const uptime = await this.history.uptimeLastDay();
    return sensors.map((sensor) => ({
      ...sensor,
      uptime_24h: uptime.get(sensor.id) ?? null,
      recent: this.scheduling.live(sensor.id)?.recent ?? '',
    }));
  }

  sites(): Promise<Site[]> {
    return this.siteList.list();
  }
}
