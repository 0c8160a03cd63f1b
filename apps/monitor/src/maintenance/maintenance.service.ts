import { Injectable, OnModuleInit } from '@nestjs/common';
import { ConflictError, InvalidInputError, NotFoundError } from '@monitor/domain';
import type { MaintenanceWindow } from '@monitor/contracts';
import { DataSource, In } from 'typeorm';
import { Clock } from '../core/clock/clock';
import { SensorEntity } from '../sensors/sensor.entity';
import { MaintenanceWindowEntity, MaintenanceWindowSensorEntity } from './maintenance-window.entity';

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
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.reload();
  }

  async reload(): Promise<void> {
    const rows = await this.dataSource
      .getRepository(MaintenanceWindowEntity)
      .find({ order: { startsAt: 'ASC' } });
    const links = await this.dataSource.getRepository(MaintenanceWindowSensorEntity).find();
    this.windows = rows.map((w) => ({
      id: w.id,
      name: w.name,
      startsAt: w.startsAt,
      endsAt: w.endsAt,
      allSensors: w.allSensors,
      sensorIds: new Set(links.filter((l) => l.windowId === w.id).map((l) => l.sensorId)),
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
    const managed = await this.dataSource
      .getRepository(MaintenanceWindowEntity)
      .find({ select: { id: true, managedBy: true } });
    const managedBy = new Map(managed.map((m) => [m.id, m.managedBy]));
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
    const id = await this.dataSource.transaction(async (manager) => {
      if (sensorIds.length > 0) {
        const found = await manager.getRepository(SensorEntity).countBy({ id: In(sensorIds) });
        if (found !== sensorIds.length)
          throw new InvalidInputError('sensors names a sensor that does not exist');
      }
      const saved = await manager.getRepository(MaintenanceWindowEntity).save({
        name: input.name.trim(),
        startsAt,
        endsAt,
        allSensors: sensorIds.length === 0,
        managedBy: null,
        createdAt: this.clock.now(),
      });
      if (sensorIds.length > 0) {
        await manager
          .getRepository(MaintenanceWindowSensorEntity)
          .insert(sensorIds.map((sensorId) => ({ windowId: saved.id, sensorId })));
      }
      return saved.id;
    });
    await this.reload();
    return (await this.list()).find((w) => w.id === id) as MaintenanceWindow;
  }

  async remove(id: number): Promise<void> {
    const repo = this.dataSource.getRepository(MaintenanceWindowEntity);
    const window = await repo.findOneBy({ id });
    if (!window) throw new NotFoundError(`no maintenance window with id ${id}`);
    if (window.managedBy)
      throw new ConflictError(`maintenance window "${window.name}" is managed by the configuration file`);
    await repo.delete({ id });
    await this.reload();
  }
}
