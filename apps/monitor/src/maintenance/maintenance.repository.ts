import { Injectable } from '@nestjs/common';
import { DataSource, In, Not } from 'typeorm';
import { managerOf, type Tx } from '../core/database/unit-of-work';
import { MaintenanceWindowEntity, MaintenanceWindowSensorEntity } from './maintenance-window.entity';

/** A stored window with the sensors it covers. */
export interface StoredWindow {
  id: number;
  name: string;
  startsAt: number;
  endsAt: number;
  allSensors: boolean;
  managedBy: string | null;
  sensorIds: number[];
}

/** What the API and the configuration file set on a window. */
export interface WindowColumns {
  name: string;
  startsAt: number;
  endsAt: number;
  /** Empty: every sensor. */
  sensorIds: number[];
}

/** The only code that reads or writes `maintenance_windows` and `maintenance_window_sensors`. */
@Injectable()
export class MaintenanceRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every window by start, with its sensors. */
  async all(): Promise<StoredWindow[]> {
    const rows = await this.dataSource
      .getRepository(MaintenanceWindowEntity)
      .find({ order: { startsAt: 'ASC' } });
    const links = await this.dataSource.getRepository(MaintenanceWindowSensorEntity).find();
    return rows.map((w) => ({
      id: w.id,
      name: w.name,
      startsAt: w.startsAt,
      endsAt: w.endsAt,
      allSensors: w.allSensors,
      managedBy: w.managedBy,
      sensorIds: links.filter((l) => l.windowId === w.id).map((l) => l.sensorId),
    }));
  }

  async byId(id: number): Promise<{ name: string; managedBy: string | null } | null> {
    return this.dataSource.getRepository(MaintenanceWindowEntity).findOneBy({ id });
  }

  /** Stores a window created through the API; its id. */
  async insert(tx: Tx, window: WindowColumns, now: number): Promise<number> {
    const m = managerOf(tx);
    const saved = await m.getRepository(MaintenanceWindowEntity).save({
      name: window.name,
      startsAt: window.startsAt,
      endsAt: window.endsAt,
      allSensors: window.sensorIds.length === 0,
      managedBy: null,
      createdAt: now,
    });
    await this.link(tx, saved.id, window.sensorIds);
    return saved.id;
  }

  async delete(id: number): Promise<void> {
    await this.dataSource.getRepository(MaintenanceWindowEntity).delete({ id });
  }

  /**
   * Creates or updates a window the configuration file declares, marked as managed by it: the one
   * it already manages, else the oldest of that name. Returns its id.
   */
  async saveDeclared(tx: Tx, window: WindowColumns, managedBy: string, now: number): Promise<number> {
    const repository = managerOf(tx).getRepository(MaintenanceWindowEntity);
    const row =
      (await repository.findOne({ where: { name: window.name, managedBy } })) ??
      (await repository.findOne({ where: { name: window.name }, order: { id: 'ASC' } }));
    const columns = {
      name: window.name,
      startsAt: window.startsAt,
      endsAt: window.endsAt,
      allSensors: window.sensorIds.length === 0,
      managedBy,
    };
    const saved = await repository.save(row ? Object.assign(row, columns) : { ...columns, createdAt: now });
    await managerOf(tx).getRepository(MaintenanceWindowSensorEntity).delete({ windowId: saved.id });
    await this.link(tx, saved.id, window.sensorIds);
    return saved.id;
  }

  /** Windows the file managed before and no longer declares go back to the API. */
  async releaseDeclared(tx: Tx, managedBy: string, keep: number[]): Promise<void> {
    await managerOf(tx)
      .getRepository(MaintenanceWindowEntity)
      .update({ managedBy, id: Not(In(keep)) }, { managedBy: null });
  }

  private async link(tx: Tx, windowId: number, sensorIds: number[]): Promise<void> {
    if (sensorIds.length === 0) return;
    await managerOf(tx)
      .getRepository(MaintenanceWindowSensorEntity)
      .insert(sensorIds.map((sensorId) => ({ windowId, sensorId })));
  }
}
