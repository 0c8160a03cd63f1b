import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { IncidentEntity } from './incident.entity';
import { containsPattern } from '../core/database/like-pattern';
import type { IncidentFilter } from './incident-query';

/** Incident rows. Incidents are never deleted on their own (only with their sensor). */
@Injectable()
export class IncidentsRepository {
  constructor(private readonly dataSource: DataSource) {}

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
  allOpen(): Promise<IncidentEntity[]> {
    return this.repo().findBy({ resolvedAt: IsNull() });
  }
}
