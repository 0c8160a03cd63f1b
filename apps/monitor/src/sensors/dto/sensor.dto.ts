import type { SensorInput, SensorType } from '@monitor/contracts';
import { SENSOR_TYPES } from '@monitor/contracts';
import {
  Allow,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

const bounds = (field: string, min: number, max: number) => ({
  message: `${field} must be an integer from ${min} to ${max}`,
});

/**
 * Sensor fields for POST (name, type and target required) and PUT (every field optional: absent
 * keeps, "" and [] clear). Read-only fields are accepted and ignored.
 */
export class SensorInputDto implements SensorInput {
  @IsOptional() @IsString() @MaxLength(200) name?: string;
  @IsOptional()
  @IsIn(SENSOR_TYPES, { message: `type must be one of ${SENSOR_TYPES.join(', ')}` })
  type?: SensorType;
  /** What is probed: a URL for http, host:port for tcp, a host for ping, a name for dns, a container for docker, a host for snmp. */
  @IsOptional() @IsString() @MaxLength(2000) target?: string;
  /** Seconds between probes, 1 to 86400 (default 60). */
  @IsOptional()
  @IsInt(bounds('interval', 1, 86400))
  @Min(1, bounds('interval', 1, 86400))
  @Max(86400, bounds('interval', 1, 86400))
  interval?: number;
  /** Consecutive failures before down, 1 to 100 (default 3). */
  @IsOptional()
  @IsInt(bounds('retries', 1, 100))
  @Min(1, bounds('retries', 1, 100))
  @Max(100, bounds('retries', 1, 100))
  retries?: number;
  /** Seconds between reminders while down, 0 (off) to 604800. */
  @IsOptional()
  @IsInt(bounds('reminder_every', 0, 604800))
  @Min(0, bounds('reminder_every', 0, 604800))
  @Max(604800, bounds('reminder_every', 0, 604800))
  reminder_every?: number;
  @IsOptional() @IsString() @MaxLength(200) group?: string;
  @IsOptional() @IsArray() @IsString({ each: true }) @MaxLength(100, { each: true }) tags?: string[];
  /** Name of an existing site; "" clears. */
  @IsOptional() @IsString() site?: string;
  @IsOptional() @IsBoolean() enabled?: boolean;
  /** Type-specific options; secret ones come back as "__stored__", and sending that back keeps them. */
  @IsOptional() @IsObject() options?: Record<string, unknown>;
  /** Ids of alert channels to notify. */
  @IsOptional()
  @IsArray()
  @IsInt({ each: true, message: 'channels must be an array of channel ids' })
  channels?: number[];
  /** A parent sensor: while it is down this one is excused. null clears. */
  @IsOptional() @ValidateIf((_o, v) => v !== null) @IsInt() parent_id?: number | null;

  // Read-only fields: accepted in a body (a GET response can be sent back) and ignored.
  @Allow() id?: unknown;
  @Allow() status?: unknown;
  @Allow() message?: unknown;
  @Allow() sparkline?: unknown;
  @Allow() last_checked_at?: unknown;
  @Allow() latency_ms?: unknown;
  @Allow() streak?: unknown;
  @Allow() incident_id?: unknown;
  @Allow() sort_order?: unknown;
  @Allow() sample?: unknown;
  @Allow() managed_by?: unknown;
}

export class ValidateSensorDto extends SensorInputDto {
  /** Also run the probe once and answer its result. */
  @IsOptional() @IsBoolean() probe?: boolean;
}

export class SensorOrderDto {
  /** Sensor ids in dashboard order. */
  @IsArray() @IsInt({ each: true, message: 'ids must be an array of sensor ids' }) ids!: number[];
}

export class AcknowledgeDto {
  /** Optional note shown with the acknowledgement. */
  @IsOptional() @IsString() @MaxLength(2000) note?: string;
}

/** The body PATCH accepts (documentation only: the controller checks it, any other field is 403). */
export class PatchSensorDto {
  /** false pauses, true resumes. */
  @IsBoolean() enabled!: boolean;
}
