import { Injectable } from '@nestjs/common';
import type { Incident } from '@monitor/contracts';
import { ConflictError, NotFoundError } from '@monitor/domain';
import { Clock } from '../core/clock/clock';
import { EventBus } from '../core/events/event-bus';
import { SensorRuntimeService } from '../scheduler/sensor-runtime.service';
import { SensorsRepository } from '../sensors/sensors.repository';
import { IncidentEntity } from './incident.entity';
import { IncidentQuery, toIncidentFilter } from './incident-query';
import { toIncidentView } from './incident.view';
import { INCIDENT_LIMIT } from './dto/list-incidents.dto';
import { IncidentsRepository } from './incidents.repository';

/** Acknowledgement belongs to the incident: it silences reminders only, never probing or history. */
@Injectable()
export class IncidentsService {
  constructor(
    private readonly sensors: SensorsRepository,
    private readonly incidents: IncidentsRepository,
    private readonly runtime: SensorRuntimeService,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  /** GET /api/incidents: every filter combines; newest first. */
  async list(query: IncidentQuery): Promise<Incident[]> {
    const rows = await this.incidents.list(toIncidentFilter(query, this.clock.now()));
    return rows.map((row) => toIncidentView(row, row.sensor?.name ?? ''));
  }

  /** One sensor's outages, newest first; 404 for an unknown sensor. */
  async listForSensor(sensorId: number, limit: number = INCIDENT_LIMIT.default): Promise<Incident[]> {
    if ((await this.sensors.nameOf(sensorId)) === null)
      throw new NotFoundError(`no sensor with id ${sensorId}`);
    return this.list({ sensor: sensorId, limit });
  }

  /** Incidents whose cause, sensor name or note contains `text` literally, newest first (search). */
  search(text: string, limit: number): Promise<Incident[]> {
    return this.list({ q: text, limit });
  }

  async acknowledge(incidentId: number, actor: string, note: string | undefined): Promise<Incident> {
    await this.openIncident(incidentId);
    const saved = await this.changed(
      incidentId,
      await this.incidents.setAcknowledgement(incidentId, {
        by: actor,
        at: this.clock.now(),
        note: note?.trim() ?? '',
      }),
    );
    await this.runtime.command(saved.sensorId, 'acknowledge');
    return this.announce(saved);
  }

  async unacknowledge(incidentId: number): Promise<Incident> {
    await this.openIncident(incidentId);
    const saved = await this.changed(incidentId, await this.incidents.setAcknowledgement(incidentId, null));
    await this.runtime.command(saved.sensorId, 'unacknowledge');
    return this.announce(saved);
  }

  /** The sensor shortcut: acknowledges whatever the sensor has open; 409 when nothing is down. */
  async acknowledgeSensor(sensorId: number, actor: string, note: string | undefined): Promise<Incident> {
    const name = await this.sensors.nameOf(sensorId);
    if (name === null) throw new NotFoundError(`no sensor with id ${sensorId}`);
    const open = await this.incidents.findOpen(sensorId);
    if (!open) throw new ConflictError(`sensor "${name}" has no open incident to acknowledge`);
    return this.acknowledge(open.id, actor, note);
  }

  private async openIncident(id: number): Promise<IncidentEntity> {
    const incident = await this.incidents.findById(id);
    if (!incident) throw new NotFoundError(`no incident with id ${id}`);
    if (incident.resolvedAt !== null) throw new ConflictError(`incident ${id} is resolved`);
    return incident;
  }

  /** The acknowledgement's outcome: refused like openIncident when it was closed or deleted meanwhile. */
  private async changed(id: number, saved: IncidentEntity | null): Promise<IncidentEntity> {
    if (saved) return saved;
    await this.openIncident(id);
    throw new ConflictError(`incident ${id} is resolved`);
  }

  private async announce(incident: IncidentEntity): Promise<Incident> {
    const view = toIncidentView(incident, (await this.sensors.nameOf(incident.sensorId)) ?? '');
    this.events.emit('incident', { sensor_id: incident.sensorId, incident: view });
    return view;
  }
}
