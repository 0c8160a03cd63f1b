import { Inject, Injectable } from '@nestjs/common';
import { clusterCheck } from '@monitor/domain';
import { timeoutMs } from '@monitor/probes';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { databasePath } from '../core/database/database-path';
import { DatabaseProbe } from '../core/database/database-probe';
import { ChannelsRepository } from '../channels/channels.repository';
import { ClusterService } from '../cluster/cluster.service';
import { StorageHealth } from '../core/database/storage-health';
import { SchedulerService } from '../scheduler/scheduler.service';
import { SensorRuntimeService } from '../scheduler/sensor-runtime.service';
import { SensorsRepository } from '../sensors/sensors.repository';
import { checkDataDirectory, checkDisk, type DoctorCheck, type DoctorReport } from './installation-checks';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Overdue sensors named in the scheduler check's detail; the rest are counted. */
const NAMED_AT_MOST = 5;

/** What the scheduler check needs to know of one enabled sensor. */
export interface SensorTiming {
  name: string;
  interval: number;
  options: Record<string, unknown>;
  lastCheckedAt: number | null;
  /** Since when the sensor has been due to run: its last definition change, or the process start if later. */
  dueSince: number;
}

/**
 * Enabled sensors not checked for longer than twice their interval plus their time-out (or, never
 * checked, due to run for longer than that) are overdue.
 */
export function schedulerCheck(sensors: SensorTiming[], now: number, started: boolean): DoctorCheck {
  const overdue = sensors
    .filter((s) => {
      const limit = 2 * s.interval * 1000 + timeoutMs(s.options, s.interval);
      return now - Math.max(s.lastCheckedAt ?? Number.NEGATIVE_INFINITY, s.dueSince) > limit;
    })
    .map((s) => s.name);
  const state = started ? 'running' : 'not started (probes run only on demand)';
  const enabled = `${sensors.length} enabled sensor${sensors.length === 1 ? '' : 's'}`;
  if (overdue.length === 0)
    return { name: 'scheduler', ok: true, detail: `${state}; ${enabled}, none overdue` };
  const named = overdue.slice(0, NAMED_AT_MOST).map((name) => `"${name}"`);
  const more = overdue.length - named.length;
  return {
    name: 'scheduler',
    ok: false,
    detail:
      `${state}; ${overdue.length} of ${enabled} overdue (not checked for over twice the interval ` +
      `plus the time-out): ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
  };
}

/** Channels whose latest delivery failed within the last 24 hours. */
export function deliveryCheck(failing: { name: string; last_error: string }[]): DoctorCheck {
  if (failing.length === 0)
    return { name: 'delivery', ok: true, detail: 'no channel failed to deliver in the last 24 hours' };
  const list = failing.map((c) => `"${c.name}" (${c.last_error.slice(0, 120)})`).join(', ');
  const count = failing.length === 1 ? '1 channel' : `${failing.length} channels`;
  return { name: 'delivery', ok: false, detail: `${count} failed to deliver in the last 24 hours: ${list}` };
}

/**
 * POST /api/doctor: the CLI doctor's read-only checks that make sense for a running server, plus
 * the scheduler and alert delivery. It reads only: no write, no probe, no alert.
 */
@Injectable()
export class DoctorService {
  /** The process start, as the clock saw it: before it no sensor can have been due. */
  private readonly startedAt: number;

  constructor(
    private readonly probe: DatabaseProbe,
    private readonly channels: ChannelsRepository,
    private readonly runtime: SensorRuntimeService,
    private readonly scheduler: SchedulerService,
    private readonly sensors: SensorsRepository,
    private readonly clock: Clock,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    private readonly storage: StorageHealth,
    private readonly cluster: ClusterService,
  ) {
    this.startedAt = clock.now();
  }

  async run(): Promise<DoctorReport> {
    const dataDir = this.config.data_dir;
    const checks: DoctorCheck[] = [
      checkDataDirectory(dataDir),
      ...(await this.database()),
      checkDisk(dataDir),
      this.writes(),
      await this.scheduling(),
      await this.delivery(),
      await this.instances(),
    ];
    return { ok: checks.every((check) => check.ok), checks };
  }

  private async database(): Promise<DoctorCheck[]> {
    try {
      return await this.probe.inspect();
    } catch (error) {
      const detail = `${databasePath(this.config.data_dir)} cannot be read: ${(error as Error).message}`;
      return [
        { name: 'database', ok: false, detail },
        { name: 'migrations', ok: false, detail: 'no database to inspect' },
      ];
    }
  }

  /** Whether the server's writes currently succeed, as its writers last reported. */
  private writes(): DoctorCheck {
    const problem = this.storage.describe();
    return problem
      ? { name: 'writes', ok: false, detail: problem }
      : { name: 'writes', ok: true, detail: 'database writes succeed' };
  }

  private async scheduling(): Promise<DoctorCheck> {
    const { sensors } = await this.sensors.all();
    const changedAt = new Map(sensors.map((s) => [s.id, Math.max(s.createdAt, s.updatedAt)]));
    const timings: SensorTiming[] = [];
    for (const entry of this.runtime.all()) {
      const { definition } = entry;
      if (!definition.enabled) continue;
      timings.push({
        name: definition.name,
        interval: definition.interval,
        options: definition.options,
        lastCheckedAt: entry.lastCheckedAt,
        dueSince: Math.max(this.startedAt, changedAt.get(definition.id) ?? this.startedAt),
      });
    }
    return schedulerCheck(timings, this.clock.now(), this.scheduler.isStarted);
  }

  /** The instances sharing the database; a dead one is a problem until an administrator removes it. */
  private async instances(): Promise<DoctorCheck> {
    try {
      return clusterCheck(await this.cluster.view());
    } catch (error) {
      return { name: 'cluster', ok: false, detail: `cannot read the instances: ${(error as Error).message}` };
    }
  }

  private async delivery(): Promise<DoctorCheck> {
    return deliveryCheck(await this.channels.failingSince(this.clock.now() - DAY_MS));
  }
}
