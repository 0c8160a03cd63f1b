import { Injectable, OnModuleInit } from '@nestjs/common';
import { ConflictError, InvalidInputError, NotFoundError } from '@monitor/domain';
import type { MaintenanceWindow } from '@monitor/contracts';
import { EventBus } from '../core/events/event-bus';
import { Clock } from '../core/clock/clock';
import { UnitOfWork } from '../core/database/unit-of-work';
import { SensorsRepository } from '../sensors/sensors.repository';
import { MaintenanceRepository } from './maintenance.repository';

interface ActiveWindow {
  id: number;
  name: string;
  startsAt: number;
  endsAt: number;
  allSensors: boolean;
  sensorIds: Set<number>;
}

export interface WindowInput {
  name: string;
  starts_at: string;
  ends_at: string;
  sensors: number[];
}

/** Maintenance windows, kept in memory for the per-result "is this sensor in maintenance" check. */
@Injectable()
export class MaintenanceService implements OnModuleInit {
  private windows: ActiveWindow[] = [];

  constructor(
    private readonly unit: UnitOfWork,
    private readonly repository: MaintenanceRepository,
    private readonly sensors: SensorsRepository,
    private readonly clock: Clock,
    private readonly events: EventBus,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.reload();
  }

  async reload(): Promise<void> {
    const rows = await this.repository.all();
    this.windows = rows.map((w) => ({
      id: w.id,
      name: w.name,
      startsAt: w.startsAt,
      endsAt: w.endsAt,
      allSensors: w.allSensors,
      sensorIds: new Set(w.sensorIds),
    }));
  }

  covers(window: ActiveWindow, sensorId: number): boolean {
    return window.allSensors || window.sensorIds.has(sensorId);
  }

  inMaintenance(sensorId: number, at: number): boolean {
    return this.windows.some((w) => w.startsAt <= at && at < w.endsAt && this.covers(w, sensorId));
  }

  /** Windows open at `at`. */
  active(at: number): ActiveWindow[] {
    return this.windows.filter((w) => w.startsAt <= at && at < w.endsAt);
  }

  async list(): Promise<MaintenanceWindow[]> {
    const managedBy = new Map((await this.repository.all()).map((m) => [m.id, m.managedBy]));
    return this.windows.map((w) => ({
      id: w.id,
      name: w.name,
      starts_at: new Date(w.startsAt).toISOString(),
      ends_at: new Date(w.endsAt).toISOString(),
      sensors: w.allSensors ? [] : [...w.sensorIds].sort((a, b) => a - b),
      all_sensors: w.allSensors,
      managed_by: managedBy.get(w.id) ?? null,
    }));
  }

  async create(input: WindowInput): Promise<MaintenanceWindow> {
    const startsAt = Date.parse(input.starts_at);
    const endsAt = Date.parse(input.ends_at);
    if (!(startsAt < endsAt)) throw new InvalidInputError('starts_at must be before ends_at');
    const sensorIds = [...new Set(input.sensors)];
    // atomically: a sensor deleted between the check and the links would fail their foreign key.
    const id = await this.unit.atomically(async (tx) => {
      if (sensorIds.length > 0) {
        const found = await this.sensors.countExisting(tx, sensorIds);
        if (found !== sensorIds.length)
          throw new InvalidInputError('sensors names a sensor that does not exist');
      }
      return this.repository.insert(
        tx,
        { name: input.name.trim(), startsAt, endsAt, sensorIds },
        this.clock.now(),
      );
    });
    await this.reload();
    this.events.emit('maintenance', {});
    return (await this.list()).find((w) => w.id === id) as MaintenanceWindow;
  }

  async remove(id: number): Promise<void> {
    const window = await this.repository.byId(id);
    if (!window) throw new NotFoundError(`no maintenance window with id ${id}`);
    if (window.managedBy)
      throw new ConflictError(`maintenance window "${window.name}" is managed by the configuration file`);
    await this.repository.delete(id);
    await this.reload();
    this.events.emit('maintenance', {});
  }
}
