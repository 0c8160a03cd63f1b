import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { boolOf, sqlClientFor, type SqlClient, type SqlExecutor } from '../core/database/sql-client';
import { releaseManagedRows } from '../core/database/where-in';

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

interface WindowRow {
  id: number;
  name: string;
  starts_at: number;
  ends_at: number;
  all_sensors: unknown;
  managed_by: string | null;
}

/** The only code that reads or writes `maintenance_windows` and `maintenance_window_sensors`. */
@Injectable()
export class MaintenanceRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  /** Every window by start, with its sensors. */
  async all(): Promise<StoredWindow[]> {
    const rows = await this.sql.all<WindowRow>(
      'SELECT id, name, starts_at, ends_at, all_sensors, managed_by FROM maintenance_windows ORDER BY starts_at, id',
    );
    const links = await this.sql.all<{ window_id: number; sensor_id: number }>(
      'SELECT window_id, sensor_id FROM maintenance_window_sensors ORDER BY window_id, sensor_id',
    );
    return rows.map((w) => ({
      id: Number(w.id),
      name: w.name,
      startsAt: Number(w.starts_at),
      endsAt: Number(w.ends_at),
      allSensors: boolOf(w.all_sensors),
      managedBy: w.managed_by,
      sensorIds: links.filter((l) => Number(l.window_id) === Number(w.id)).map((l) => Number(l.sensor_id)),
    }));
  }

  async byId(id: number): Promise<{ name: string; managedBy: string | null } | null> {
    const row = await this.sql.get<{ name: string; managed_by: string | null }>(
      'SELECT name, managed_by FROM maintenance_windows WHERE id = ?',
      [id],
    );
    return row ? { name: row.name, managedBy: row.managed_by } : null;
  }

  /** Stores a window created through the API; its id. */
  async insert(tx: SqlExecutor, window: WindowColumns, now: number): Promise<number> {
    const id = await this.insertRow(tx, window, null, now);
    await this.link(tx, id, window.sensorIds);
    return id;
  }

  async delete(id: number): Promise<void> {
    await this.sql.run('DELETE FROM maintenance_windows WHERE id = ?', [id]);
  }

  /**
   * Creates or updates a window the configuration file declares, marked as managed by it: the one
   * it already manages, else the oldest of that name. Returns its id.
   */
  async saveDeclared(
    tx: SqlExecutor,
    window: WindowColumns,
    managedBy: string,
    now: number,
  ): Promise<number> {
    const row =
      (await tx.get<{ id: number }>(
        'SELECT id FROM maintenance_windows WHERE name = ? AND managed_by = ? ORDER BY id LIMIT 1',
        [window.name, managedBy],
      )) ??
      (await tx.get<{ id: number }>('SELECT id FROM maintenance_windows WHERE name = ? ORDER BY id LIMIT 1', [
        window.name,
      ]));
    let id: number;
    if (row) {
      id = Number(row.id);
      await tx.run(
        'UPDATE maintenance_windows SET name = ?, starts_at = ?, ends_at = ?, all_sensors = ?, managed_by = ? WHERE id = ?',
        [window.name, window.startsAt, window.endsAt, window.sensorIds.length === 0, managedBy, id],
      );
    } else {
      id = await this.insertRow(tx, window, managedBy, now);
    }
    await tx.run('DELETE FROM maintenance_window_sensors WHERE window_id = ?', [id]);
    await this.link(tx, id, window.sensorIds);
    return id;
  }

  /** Windows the file managed before and no longer declares go back to the API. */
  releaseDeclared(tx: SqlExecutor, managedBy: string, keep: number[]): Promise<void> {
    return releaseManagedRows(tx, 'maintenance_windows', managedBy, keep);
  }

  private async insertRow(
    tx: SqlExecutor,
    window: WindowColumns,
    managedBy: string | null,
    now: number,
  ): Promise<number> {
    const row = await tx.get<{ id: number }>(
      `INSERT INTO maintenance_windows (name, starts_at, ends_at, all_sensors, managed_by, created_at)
       VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
      [window.name, window.startsAt, window.endsAt, window.sensorIds.length === 0, managedBy, now],
    );
    return Number(row!.id);
  }

  private async link(tx: SqlExecutor, windowId: number, sensorIds: number[]): Promise<void> {
    if (sensorIds.length === 0) return;
    await tx.run(
      `INSERT INTO maintenance_window_sensors (window_id, sensor_id) VALUES ${sensorIds.map(() => '(?, ?)').join(', ')}`,
      sensorIds.flatMap((sensorId) => [windowId, sensorId]),
    );
  }
}
