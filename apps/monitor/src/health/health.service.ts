import { Injectable } from '@nestjs/common';
import type { HealthStatus, VersionInfo } from '@monitor/contracts';
import { buildInfo } from '../core/build-info';
import { DatabaseProbe } from '../core/database/database-probe';
import { StorageUnavailableError } from '../core/database/storage-errors';
import { StorageHealth } from '../core/database/storage-health';

export class DatabaseUnavailableError extends Error {}

@Injectable()
export class HealthService {
  constructor(
    private readonly database: DatabaseProbe,
    private readonly storage: StorageHealth,
  ) {}

  async health(): Promise<HealthStatus> {
    try {
      await this.database.ping();
    } catch (error) {
      throw new DatabaseUnavailableError(`database did not answer: ${(error as Error).message}`);
    }
    if (this.storage.problem()?.disk) await this.tryWrite();
    const problem = this.storage.describe();
    if (problem) throw new StorageUnavailableError(503, problem);
    return { status: 'ok', version: buildInfo().version, uptime: Math.floor(process.uptime()) };
  }

  version(): VersionInfo {
    return buildInfo();
  }

  /**
   * While writes fail for a disk reason, a health check tries one write that changes nothing (it
   * sets the application id to the value it has), so an idle installation notices that space came
   * back. Other failures (a trigger, a bug) end only when their writer succeeds.
   */
  private async tryWrite(): Promise<void> {
    if (await this.database.tryWrite()) this.storage.reportSuccess({ noticed_by: 'healthz' });
  }
}
