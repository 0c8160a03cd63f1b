import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { containsPattern } from '../core/database/like-pattern';
import {
  boolOf,
  likeFragment,
  sqlClientFor,
  type SqlClient,
  type SqlExecutor,
} from '../core/database/sql-client';
import { countWhereIn, placeholdersFor } from '../core/database/where-in';
import type { IncidentFilter } from './incident-query';
import type { IncidentRow } from './incident-rows.sql';
import { IncidentEntity } from './incident.entity';

const COLUMNS = `i.id, i.sensor_id, i.started_at, i.resolved_at, i.cause, i.acknowledged, i.acknowledged_by,
  i.acknowledged_at, i.note, i.reconstructed`;

/** Incident rows. Incidents are never deleted on their own (only with their sensor). */
@Injectable()
export class IncidentsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  /** Opens an incident inside `tx`, so it commits with the result and alerts that caused it. */
  async open(
    sensorId: number,
    startedAt: number,
    cause: string,
    reconstructed: boolean,
    tx: SqlExecutor = this.sql,
  ): Promise<IncidentEntity> {
    const row = await tx.get<{ id: number }>(
      `INSERT INTO incidents (sensor_id, started_at, resolved_at, cause, acknowledged, acknowledged_by,
         acknowledged_at, note, reconstructed) VALUES (?, ?, NULL, ?, ?, NULL, NULL, '', ?) RETURNING id`,
      [sensorId, startedAt, cause, false, reconstructed],
    );
    return (await this.findById(Number(row!.id), tx))!;
  }

  /**
   * Closes an incident; a note, when given, is appended to the existing one. One conditional
   * statement, so an acknowledgement's note written meanwhile is kept, not overwritten.
   */
  async close(
    id: number,
    resolvedAt: number,
    note: string | null,
    tx: SqlExecutor = this.sql,
  ): Promise<IncidentEntity | null> {
    const text = note ?? '';
    await tx.run(
      `UPDATE incidents SET resolved_at = ?,
         note = CASE WHEN ? = '' THEN note WHEN note = '' THEN ? ELSE note || ? END
       WHERE id = ? AND resolved_at IS NULL`,
      [resolvedAt, text, text, `\n${text}`, id],
    );
    return this.findById(id, tx);
  }

  /** When each sensor's newest resolved incident was resolved, for rebuilding runtime state. */
  async lastResolved(): Promise<Map<number, number>> {
    const rows = await this.sql.all<{ sensor_id: number; at: number }>(
      'SELECT sensor_id, max(resolved_at) AS at FROM incidents WHERE resolved_at IS NOT NULL GROUP BY sensor_id',
    );
    return new Map(rows.map((r) => [Number(r.sensor_id), Number(r.at)]));
  }

  async findOpen(sensorId: number): Promise<IncidentEntity | null> {
    const row = await this.sql.get<IncidentRow>(
      `SELECT ${COLUMNS} FROM incidents i WHERE i.sensor_id = ? AND i.resolved_at IS NULL`,
      [sensorId],
    );
    return row ? entityOf(row) : null;
  }

  async findById(id: number, tx: SqlExecutor = this.sql): Promise<IncidentEntity | null> {
    const row = await tx.get<IncidentRow>(`SELECT ${COLUMNS} FROM incidents i WHERE i.id = ?`, [id]);
    return row ? entityOf(row) : null;
  }

  /**
   * Sets or clears the acknowledgement while the incident is still open (a note, when given,
   * replaces the stored one); null when it was resolved or deleted meanwhile. One conditional
   * statement: a close committed since the caller read the incident is neither undone nor lost.
   */
  async setAcknowledgement(
    id: number,
    ack: { by: string; at: number; note: string } | null,
  ): Promise<IncidentEntity | null> {
    const note = ack?.note ?? '';
    const changed = await this.sql.run(
      `UPDATE incidents SET acknowledged = ?, acknowledged_by = ?, acknowledged_at = ?,
         note = CASE WHEN ? = '' THEN note ELSE ? END
       WHERE id = ? AND resolved_at IS NULL`,
      [ack !== null, ack?.by ?? null, ack?.at ?? null, note, note, id],
    );
    return changed.changes === 1 ? this.findById(id) : null;
  }

  /**
   * Incidents matching every given filter, newest first (started_at, then id, descending), each with
   * its sensor's id and name loaded (nothing else of the sensor).
   */
  async list(filter: IncidentFilter): Promise<IncidentEntity[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.state === 'open' || filter.openOnly) where.push('i.resolved_at IS NULL');
    if (filter.state === 'resolved') where.push('i.resolved_at IS NOT NULL');
    if (filter.sensorId !== undefined) {
      where.push('i.sensor_id = ?');
      params.push(filter.sensorId);
    }
    if (filter.startedFrom !== undefined) {
      where.push('i.started_at >= ?');
      params.push(filter.startedFrom);
    }
    if (filter.startedTo !== undefined) {
      where.push('i.started_at <= ?');
      params.push(filter.startedTo);
    }
    if (filter.text !== undefined) {
      const d = this.sql.dialect;
      const text = containsPattern(filter.text);
      // The sensors of a matching name are read first and given as a list of ids: knowing the list,
      // PostgreSQL ORs index scans (trigrams on cause and note, the sensor id) when few incidents
      // match; a subquery in their place hid its size, and it walked every incident by time instead.
      const named = await this.sql.all<{ id: number }>(
        `SELECT id FROM sensors WHERE ${likeFragment(d, 'name')}`,
        [text],
      );
      const arms = [likeFragment(d, 'i.cause'), likeFragment(d, 'i.note')];
      params.push(text, text);
      if (named.length > 0) {
        const ids = named.map((row) => Number(row.id));
        arms.push(
          d === 'postgres'
            ? 'i.sensor_id = ANY(?::integer[])'
            : 'i.sensor_id IN (SELECT value FROM json_each(?))',
        );
        params.push(d === 'postgres' ? ids : JSON.stringify(ids));
      }
      where.push(`(${arms.join(' OR ')})`);
    }
    const rows = await this.sql.all<IncidentRow & { sensor_name: string }>(
      `SELECT ${COLUMNS}, s.name AS sensor_name FROM incidents i INNER JOIN sensors s ON s.id = i.sensor_id
       ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY i.started_at DESC, i.id DESC LIMIT ?`,
      [...params, filter.limit],
    );
    return rows.map((row) => {
      const incident = entityOf(row);
      // Only the sensor's id and name are loaded.
      incident.sensor = { id: incident.sensorId, name: row.sensor_name } as IncidentEntity['sensor'];
      return incident;
    });
  }

  /** Stores an invented, resolved outage (sample data) inside the caller's transaction. */
  async insertSample(
    tx: SqlExecutor,
    sensorId: number,
    startedAt: number,
    resolvedAt: number,
    cause: string,
  ) {
    await tx.run('INSERT INTO incidents (sensor_id, started_at, resolved_at, cause) VALUES (?, ?, ?, ?)', [
      sensorId,
      startedAt,
      resolvedAt,
      cause,
    ]);
  }

  /** How many incidents the given sensors have. */
  countOf(tx: SqlExecutor, sensorIds: number[]): Promise<number> {
    return countWhereIn(tx, 'incidents', 'sensor_id', sensorIds);
  }

  async count(): Promise<number> {
    return Number((await this.sql.get<{ n: number }>('SELECT count(*) AS n FROM incidents'))?.n ?? 0);
  }

  /** A sensor's incidents that overlap [from, to), newest first. */
  async overlapping(sensorId: number, from: number, to: number): Promise<IncidentEntity[]> {
    const rows = await this.sql.all<IncidentRow>(
      `SELECT ${COLUMNS} FROM incidents i WHERE i.sensor_id = ? AND i.started_at < ?
         AND (i.resolved_at IS NULL OR i.resolved_at > ?)
       ORDER BY i.started_at DESC, i.id DESC`,
      [sensorId, to, from],
    );
    return rows.map(entityOf);
  }

  /**
   * The sensors' open incidents and those resolved after `since`: sensor and times only (what a
   * public status page may show). A few statements for all the sensors together.
   */
  async spansOf(
    sensorIds: readonly number[],
    since: number,
  ): Promise<{ sensorId: number; startedAt: number; resolvedAt: number | null }[]> {
    const out: { sensorId: number; startedAt: number; resolvedAt: number | null }[] = [];
    for (let at = 0; at < sensorIds.length; at += 500) {
      const ids = sensorIds.slice(at, at + 500);
      const rows = await this.sql.all<{ sensor_id: number; started_at: number; resolved_at: number | null }>(
        `SELECT sensor_id, started_at, resolved_at FROM incidents
         WHERE sensor_id IN (${placeholdersFor(ids)}) AND (resolved_at IS NULL OR resolved_at >= ?)`,
        [...ids, since],
      );
      for (const row of rows) {
        out.push({
          sensorId: Number(row.sensor_id),
          startedAt: Number(row.started_at),
          resolvedAt: row.resolved_at === null ? null : Number(row.resolved_at),
        });
      }
    }
    return out;
  }

  /** Every open incident, for rebuilding runtime state at start. */
  async allOpen(): Promise<IncidentEntity[]> {
    return (
      await this.sql.all<IncidentRow>(
        `SELECT ${COLUMNS} FROM incidents i WHERE i.resolved_at IS NULL ORDER BY i.id`,
      )
    ).map(entityOf);
  }
}

function entityOf(row: IncidentRow): IncidentEntity {
  return Object.assign(new IncidentEntity(), {
    id: Number(row.id),
    sensorId: Number(row.sensor_id),
    startedAt: Number(row.started_at),
    resolvedAt: row.resolved_at === null ? null : Number(row.resolved_at),
    cause: row.cause,
    acknowledged: boolOf(row.acknowledged),
    acknowledgedBy: row.acknowledged_by,
    acknowledgedAt: row.acknowledged_at === null ? null : Number(row.acknowledged_at),
    note: row.note,
    reconstructed: boolOf(row.reconstructed),
  });
}
