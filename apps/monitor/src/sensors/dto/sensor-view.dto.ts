import type {
  ProbeResult,
  Sensor,
  SensorStatus,
  SummarySensor,
  SensorType,
  Site,
  SparkPoint,
  Summary,
} from '@monitor/contracts';

export class SparkPointDto implements SparkPoint {
  ts!: string;
  success!: boolean;
  latency_ms!: number | null;
}

export class SensorDto implements Sensor {
  id!: number;
  name!: string;
  type!: SensorType;
  target!: string;
  interval!: number;
  retries!: number;
  reminder_every!: number;
  group!: string;
  tags!: string[];
  site!: string;
  enabled!: boolean;
  /** Type-specific options; secret ones read "__stored__". */
  options!: Record<string, unknown>;
  channels!: number[];
  parent_id!: number | null;
  /** `up`, `down`, `warn` (shown as Flaky), `unknown` or `paused`. */
  status!: SensorStatus;
  /** The last probe's message. */
  message!: string;
  /** Up to 30 most recent results, oldest first. */
  sparkline!: SparkPointDto[];
  last_checked_at!: string | null;
  latency_ms!: number | null;
  /** Consecutive failures. */
  streak!: number;
  /** The open incident, or null. */
  incident_id!: number | null;
  sort_order!: number;
  /** Created by the sample-data load. */
  sample!: boolean;
  /** `config` when declared in the configuration file. */
  managed_by!: string | null;
}

export class ProbeResultDto implements ProbeResult {
  ts!: string;
  success!: boolean;
  status_code!: number | null;
  message!: string;
  latency_ms!: number | null;
}

export class SiteDto implements Site {
  name!: string;
  kind!: 'local' | 'external';
  lat!: number | null;
  lon!: number | null;
  sensor_count!: number;
}

export class SummarySensorDto extends SensorDto implements SummarySensor {
  /** Percent up over the last 24 full hours (hourly rollups); null without results in that time. */
  uptime_24h!: number | null;
  /** Up to 50 most recent outcomes, oldest first, one character each: `1` success, `0` failure. */
  recent!: string;
}

export class SummaryDto implements Summary {
  sensors!: SummarySensorDto[];
  sites!: SiteDto[];
  generated_at!: string;
}

export class ValidateResultDto {
  ok!: true;
  /** Present when the draft was probed once. */
  result?: ProbeResultDto;
}
