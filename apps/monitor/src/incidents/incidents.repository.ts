import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { IncidentEntity } from './incident.entity';

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

  /** Every open incident, for rebuilding runtime state at start. */
  allOpen(): Promise<IncidentEntity[]> {
    return this.repo().findBy({ resolvedAt: IsNull() });
  }
}
