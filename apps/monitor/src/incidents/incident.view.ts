import type { Incident } from '@monitor/contracts';
import { IncidentEntity } from './incident.entity';
import { isoOrNull } from '../core/clock/iso';

export function toIncidentView(incident: IncidentEntity, sensorName: string): Incident {
  const view: Incident = {
    id: incident.id,
    sensor_id: incident.sensorId,
    sensor_name: sensorName,
    started_at: new Date(incident.startedAt).toISOString(),
    cause: incident.cause,
    acknowledged: incident.acknowledged,
    acknowledged_by: incident.acknowledgedBy,
    acknowledged_at: isoOrNull(incident.acknowledgedAt),
    note: incident.note,
    reconstructed: incident.reconstructed,
  };
  if (incident.resolvedAt !== null) view.resolved_at = new Date(incident.resolvedAt).toISOString();
  return view;
}
