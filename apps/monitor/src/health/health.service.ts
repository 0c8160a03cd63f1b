import { Injectable } from '@nestjs/common';
import type { HealthStatus, VersionInfo } from '@monitor/contracts';
import { DataSource } from 'typeorm';
import { buildInfo } from '../core/build-info';

export class DatabaseUnavailableError extends Error {}

@Injectable()
export class HealthService {
  constructor(private readonly dataSource: DataSource) {}

  async health(): Promise<HealthStatus> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch (error) {
      throw new DatabaseUnavailableError(`database did not answer: ${(error as Error).message}`);
    }
    return { status: 'ok', version: buildInfo().version, uptime: Math.floor(process.uptime()) };
  }

  version(): VersionInfo {
    return buildInfo();
  }
}
