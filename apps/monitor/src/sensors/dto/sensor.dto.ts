import type { SensorInput, SensorType } from '@monitor/contracts';
import { SENSOR_FIELDS } from '@monitor/domain';
import {
  Allow,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { FollowsRule } from '../../core/http/follows-rule';

/**
 * Sensor fields for POST (name, type and target required) and PUT (every field optional: absent
 * keeps, "" and [] clear). Read-only fields are accepted and ignored. Bounds, lengths and messages
 * come from the sensor definition in libs/domain, which the configuration file and backup readers share.
 */
export class SensorInputDto implements SensorInput {
  @IsOptional() @FollowsRule(SENSOR_FIELDS.name) name?: string;
  @IsOptional() @FollowsRule(SENSOR_FIELDS.type) type?: SensorType;
  /** What is probed: a URL for http, host:port for tcp, a host for ping, a name for dns, a container for docker, a host for snmp. */
  @IsOptional() @FollowsRule(SENSOR_FIELDS.target) target?: string;
  /** Seconds between probes. */
  @IsOptional() @FollowsRule(SENSOR_FIELDS.interval) interval?: number;
  /** Consecutive failures before down. */
  @IsOptional() @FollowsRule(SENSOR_FIELDS.retries) retries?: number;
  /** Seconds between reminders while down, 0 (off). */
  @IsOptional() @FollowsRule(SENSOR_FIELDS.reminder_every) reminder_every?: number;
  @IsOptional() @FollowsRule(SENSOR_FIELDS.group) group?: string;
  @IsOptional() @FollowsRule(SENSOR_FIELDS.tags) tags?: string[];
  /** Name of an existing site; "" clears. */
  @IsOptional() @FollowsRule(SENSOR_FIELDS.site) site?: string;
  @IsOptional() @FollowsRule(SENSOR_FIELDS.enabled) enabled?: boolean;
  /** Type-specific options; secret ones come back as "__stored__", and sending that back keeps them. */
  @IsOptional() @FollowsRule(SENSOR_FIELDS.options) options?: Record<string, unknown>;
  /** Ids of alert channels to notify. */
  @IsOptional()
  @IsArray({ message: 'channels must be an array of channel ids' })
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
