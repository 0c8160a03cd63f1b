import type { Incident } from '@monitor/contracts';

export class IncidentDto implements Incident {
  id!: number;
  sensor_id!: number;
  sensor_name!: string;
  started_at!: string;
  /** Absent while the incident is open. */
  resolved_at?: string;
  /** The opening probe's message. */
  cause!: string;
  acknowledged!: boolean;
  /** Username, or `api` when the API key was used. */
  acknowledged_by!: string | null;
  acknowledged_at!: string | null;
  note!: string;
  /** Opened at start-up from stored results of an outage that happened while the process was off. */
  reconstructed!: boolean;
}
