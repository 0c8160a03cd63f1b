export type SensorType = 'http' | 'tcp' | 'ping' | 'dns' | 'docker' | 'snmp' | 'push';
export const SENSOR_TYPES: readonly SensorType[] = ['http', 'tcp', 'ping', 'dns', 'docker', 'snmp', 'push'];

/** Types without a target: their results arrive (push sensors) instead of being probed. */
export const TARGETLESS_TYPES: readonly SensorType[] = ['push'];

/** Answer of POST /api/sensors/{id}/push-token: the new token, and the push URL when base_url is set. */
export interface PushToken {
  token: string;
  url?: string;
}

export type SensorStatus = 'up' | 'down' | 'warn' | 'unknown' | 'paused';

/** The comparisons of an http sensor's JSON check (option `json_operator`; `==` when absent). */
export const JSON_OPERATORS = ['==', '!=', '<', '<=', '>', '>=', 'contains'] as const;
export type JsonOperator = (typeof JSON_OPERATORS)[number];

/** The marker that stands for a stored secret in responses; sent back, it keeps the stored value. */
export const STORED_SECRET = '__stored__';

export interface SparkPoint {
  ts: string;
  success: boolean;
  latency_ms: number | null;
}

export interface Sensor {
  id: number;
  name: string;
  type: SensorType;
  target: string;
  interval: number;
  retries: number;
  reminder_every: number;
  group: string;
  tags: string[];
  site: string;
  enabled: boolean;
  options: Record<string, unknown>;
  /** Ids of the alert channels this sensor notifies. */
  channels: number[];
  parent_id: number | null;
  status: SensorStatus;
  message: string;
  /** Up to 30 most recent results, oldest first. */
  sparkline: SparkPoint[];
  last_checked_at: string | null;
  latency_ms: number | null;
  /** Consecutive failures. */
  streak: number;
  /** The open incident, if any. */
  incident_id: number | null;
  sort_order: number;
  sample: boolean;
  /** `config` when declared in the configuration file (read-only through the API), else null. */
  managed_by: string | null;
}

export interface SensorInput {
  name?: string;
  type?: SensorType;
  target?: string;
  interval?: number;
  retries?: number;
  reminder_every?: number;
  group?: string;
  tags?: string[];
  site?: string;
  enabled?: boolean;
  options?: Record<string, unknown>;
  channels?: number[];
  parent_id?: number | null;
}

export interface ProbeResult {
  ts: string;
  success: boolean;
  status_code: number | null;
  message: string;
  latency_ms: number | null;
}

/** A result as stored (GET /api/sensors/{id}/results): it names the instance that probed it. */
export interface StoredProbeResult extends ProbeResult {
  /** The `instance_name` of the prober; '' in single-instance mode (SQLite) and for sample data. */
  instance: string;
}

export interface Incident {
  id: number;
  sensor_id: number;
  sensor_name: string;
  started_at: string;
  /** Absent while open. */
  resolved_at?: string;
  cause: string;
  acknowledged: boolean;
  acknowledged_by: string | null;
  acknowledged_at: string | null;
  note: string;
  reconstructed: boolean;
}

export interface Site {
  name: string;
  kind: 'local' | 'external';
  lat: number | null;
  lon: number | null;
  sensor_count: number;
}

/** Points in a sensor's `sparkline`. */
export const SPARKLINE_POINTS = 30;

/** Number of outcomes in {@link SummarySensor.recent}. */
export const RECENT_OUTCOMES = 50;

/** A sensor as the summary lists it: the sensor plus what the status page's list shows. */
export interface SummarySensor extends Sensor {
  /** Percent up over the last 24 full hours (hourly rollups), rounded as the uptime
   * endpoint rounds; null without results in that time. */
  uptime_24h: number | null;
  /** Up to 50 most recent outcomes, oldest first, one character each: `1` success, `0` failure. */
  recent: string;
}

export interface Summary {
  sensors: SummarySensor[];
  sites: Site[];
  generated_at: string;
}

export interface MaintenanceWindow {
  id: number;
  name: string;
  starts_at: string;
  ends_at: string;
  /** Sensor ids; empty in a request means every sensor. */
  sensors: number[];
  /** Whether the window covers every sensor (it was created with an empty list). */
  all_sensors: boolean;
  managed_by: string | null;
}
