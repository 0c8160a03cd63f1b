import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { connectionOf, type SyncTx } from '../core/database/unit-of-work';
import { IncidentEntity } from './incident.entity';
import { containsPattern } from '../core/database/like-pattern';
import { sqliteHandle } from '../core/database/sqlite-handle';
import type { IncidentFilter } from './incident-query';

/** Incident rows. Incidents are never deleted on their own (only with their sensor). */
@Injectable()
export class IncidentsRepository {
  private statements?: {
    insert: Database.Statement;
    byId: Database.Statement;
    resolve: Database.Statement;
  };

  constructor(private readonly dataSource: DataSource) {}

  private prepared() {
    const db = sqliteHandle(this.dataSource);
    this.statements ??= {
      insert: db.prepare(
        `INSERT INTO incidents (sensor_id, started_at, resolved_at, cause, acknowledged, acknowledged_by,
           acknowledged_at, note, reconstructed) VALUES (?, ?, NULL, ?, 0, NULL, NULL, '', 0)`,
      ),
      byId: db.prepare('SELECT * FROM incidents WHERE id = ?'),
      resolve: db.prepare('UPDATE incidents SET resolved_at = ?, note = ? WHERE id = ?'),
    };
    return this.statements;
  }

  /**
   * Opens an incident inside the caller's synchronous transaction on the shared connection, so
   * that it commits together with the result and the alerts that caused it.
   */
  openNow(sensorId: number, startedAt: number, cause: string): IncidentEntity {
    const { insert, byId } = this.prepared();
    const { lastInsertRowid } = insert.run(sensorId, startedAt, cause);
    return entityOf(byId.get(lastInsertRowid) as IncidentRow);
  }

  /** findById() as a synchronous read, for use inside the caller's transaction (see openNow). */
  findNow(id: number): IncidentEntity | null {
    const row = this.prepared().byId.get(id) as IncidentRow | undefined;
    return row ? entityOf(row) : null;
  }

  /** close() inside the caller's synchronous transaction (see openNow). */
  closeNow(id: number, resolvedAt: number, note: string | null): IncidentEntity | null {
    const { byId, resolve } = this.prepared();
    const row = byId.get(id) as IncidentRow | undefined;
    if (!row || row.resolved_at !== null) return row ? entityOf(row) : null;
    const merged = note ? (row.note ? `${row.note}\n${note}` : note) : row.note;
    resolve.run(resolvedAt, merged, id);
    return entityOf({ ...row, resolved_at: resolvedAt, note: merged });
  }

  /** When each sensor's newest resolved incident was resolved, for rebuilding runtime state. */
  async lastResolved(): Promise<Map<number, number>> {
    const rows = (await this.dataSource.query(
      'SELECT sensor_id, max(resolved_at) AS at FROM incidents WHERE resolved_at IS NOT NULL GROUP BY sensor_id',
    )) as { sensor_id: number; at: number }[];
    return new Map(rows.map((r) => [r.sensor_id, r.at]));
  }

  private repo(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(IncidentEntity);
  }

  async open(
    sensorId: number,
    startedAt: number,
    cause: string,
    reconstructed: boolean,
    manager?: EntityManager,
  ): Promise<IncidentEntity> {
    return this.repo(manager).save(
      this.repo(manager).create({
        sensorId,
        startedAt,
        resolvedAt: null,
        cause,
        acknowledged: false,
        acknowledgedBy: null,
        acknowledgedAt: null,
        note: '',
        reconstructed,
      }),
    );
  }

  /** Closes the open incident of a sensor; a note, when given, is appended to the existing one. */
  async close(
    id: number,
    resolvedAt: number,
    note: string | null,
    manager?: EntityManager,
  ): Promise<IncidentEntity | null> {
    const incident = await this.repo(manager).findOneBy({ id });
    if (!incident || incident.resolvedAt !== null) return incident;
    incident.resolvedAt = resolvedAt;
    if (note) incident.note = incident.note ? `${incident.note}\n${note}` : note;
    return this.repo(manager).save(incident);
  }

  findOpen(sensorId: number): Promise<IncidentEntity | null> {
    return this.repo().findOneBy({ sensorId, resolvedAt: IsNull() });
  }

  findById(id: number): Promise<IncidentEntity | null> {
    return this.repo().findOneBy({ id });
  }

  async setAcknowledgement(
    incident: IncidentEntity,
    ack: { by: string; at: number; note: string } | null,
  ): Promise<IncidentEntity> {
    incident.acknowledged = ack !== null;
    incident.acknowledgedBy = ack?.by ?? null;
    incident.acknowledgedAt = ack?.at ?? null;
    if (ack && ack.note) incident.note = ack.note;
    return this.repo().save(incident);
  }

  /**
   * Incidents matching every given filter, newest first (started_at, then id, descending), each with
   * its sensor's id and name loaded (nothing else of the sensor).
   */
  list(filter: IncidentFilter): Promise<IncidentEntity[]> {
    const query = this.repo()
      .createQueryBuilder('i')
      .innerJoin('i.sensor', 's')
      .addSelect(['s.id', 's.name']);
    if (filter.state === 'open' || filter.openOnly) query.andWhere('i.resolvedAt IS NULL');
    if (filter.state === 'resolved') query.andWhere('i.resolvedAt IS NOT NULL');
    if (filter.sensorId !== undefined)
      query.andWhere('i.sensorId = :sensorId', { sensorId: filter.sensorId });
    if (filter.startedFrom !== undefined)
      query.andWhere('i.startedAt >= :startedFrom', { startedFrom: filter.startedFrom });
    if (filter.startedTo !== undefined)
      query.andWhere('i.startedAt <= :startedTo', { startedTo: filter.startedTo });
    if (filter.text !== undefined)
      query.andWhere(
        "(i.cause LIKE :text ESCAPE '\\' OR s.name LIKE :text ESCAPE '\\' OR i.note LIKE :text ESCAPE '\\')",
        { text: containsPattern(filter.text) },
      );
    return query.orderBy('i.startedAt', 'DESC').addOrderBy('i.id', 'DESC').limit(filter.limit).getMany();
  }

  /** Every open incident, for rebuilding runtime state at start. */
  /** Stores an invented, resolved outage (sample data) inside the caller's transaction. */
  insertSample(tx: SyncTx, sensorId: number, startedAt: number, resolvedAt: number, cause: string): void {
    connectionOf(tx)
      .prepare('INSERT INTO incidents (sensor_id, started_at, resolved_at, cause) VALUES (?, ?, ?, ?)')
      .run(sensorId, startedAt, resolvedAt, cause);
  }

  /** How many incidents the given sensors have. */
  countOf(tx: SyncTx, sensorIds: number[]): number {
    const count = connectionOf(tx).prepare('SELECT count(*) FROM incidents WHERE sensor_id = ?').pluck();
    return sensorIds.reduce((sum, id) => sum + (count.get(id) as number), 0);
  }

  async count(): Promise<number> {
    return this.dataSource.getRepository(IncidentEntity).count();
  }

  /** A sensor's incidents that overlap [from, to), newest first. */
  overlapping(sensorId: number, from: number, to: number): Promise<IncidentEntity[]> {
    return this.dataSource
      .getRepository(IncidentEntity)
      .createQueryBuilder('i')
      .where('i.sensor_id = :sensorId AND i.started_at < :to', { sensorId, to })
      .andWhere('(i.resolved_at IS NULL OR i.resolved_at > :from)', { from })
      .orderBy('i.started_at', 'DESC')
      .addOrderBy('i.id', 'DESC')
      .getMany();
  }

  allOpen(): Promise<IncidentEntity[]> {
    return this.repo().findBy({ resolvedAt: IsNull() });
  }
}

interface IncidentRow {
  id: number;
  sensor_id: number;
  started_at: number;
  resolved_at: number | null;
  cause: string;
  acknowledged: number;
  acknowledged_by: string | null;
  acknowledged_at: number | null;
  note: string;
  reconstructed: number;
}

function entityOf(row: IncidentRow): IncidentEntity {
  return Object.assign(new IncidentEntity(), {
    id: row.id,
    sensorId: row.sensor_id,
    startedAt: row.started_at,
    resolvedAt: row.resolved_at,
    cause: row.cause,
    acknowledged: row.acknowledged === 1,
    acknowledgedBy: row.acknowledged_by,
    acknowledgedAt: row.acknowledged_at,
    note: row.note,
    reconstructed: row.reconstructed === 1,
  });
}
