import type { MaintenanceWindow } from '@monitor/contracts';
import { IsArray, IsInt, IsISO8601, IsString, MaxLength, MinLength } from 'class-validator';

export class CreateMaintenanceWindowDto {
  @IsString() @MinLength(1) @MaxLength(200) name!: string;
  /** RFC 3339 start. */
  @IsISO8601({ strict: true }, { message: 'starts_at must be an RFC 3339 timestamp' }) starts_at!: string;
  /** RFC 3339 end, after starts_at. */
  @IsISO8601({ strict: true }, { message: 'ends_at must be an RFC 3339 timestamp' }) ends_at!: string;
  /** Sensor ids; an empty array means every sensor. */
  @IsArray() @IsInt({ each: true, message: 'sensors must be an array of sensor ids' }) sensors!: number[];
}

export class MaintenanceWindowDto implements MaintenanceWindow {
  id!: number;
  name!: string;
  starts_at!: string;
  ends_at!: string;
  /** Sensor ids. */
  sensors!: number[];
  /** Covers every sensor (created with an empty list). A window whose listed sensors were all deleted covers none. */
  all_sensors!: boolean;
  managed_by!: string | null;
}
