import {
  DENSITIES,
  SENSOR_ORDERS,
  type Density,
  type SensorOrder,
  type UpdateSettingsRequest,
} from '@monitor/contracts';
import { Type } from 'class-transformer';
import { ApiProperty } from '@nestjs/swagger';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { UiSettingsDto } from './ui-settings.dto';
import { MetricsTokenStatusDto } from './metrics-token.dto';

export class UiSettingsPatchDto {
  @IsOptional() @IsIn(['light', 'dark', 'system']) theme?: 'light' | 'dark' | 'system';
  @IsOptional() @IsIn(['on', 'off']) live?: 'on' | 'off';
  @IsOptional() @IsIn(['on', 'off']) borders?: 'on' | 'off';
  /** A language tag such as `en` or `de-CH`. */
  @IsOptional()
  @Matches(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, { message: 'language must be a language tag such as en' })
  language?: string;
  @IsOptional() @IsIn(DENSITIES) density?: Density;
  @IsOptional() @IsIn(SENSOR_ORDERS) order?: SensorOrder;
}

export class UpdateSettingsDto implements UpdateSettingsRequest {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => UiSettingsPatchDto) ui!: UiSettingsPatchDto;
}

export class TourProgressDto {
  /** The guided-tour version the account has finished. */
  @IsInt() @Min(0) @Max(1_000_000) version!: number;
}

export class RuntimeInfoDto {
  version!: string;
  data_dir!: string;
  @ApiProperty({ enum: ['sqlite', 'postgres'] })
  database_backend!: 'sqlite' | 'postgres';
  /** The SQLite file, or on PostgreSQL the database URL with its password (and secret parameters) masked. */
  database_path!: string;
  config_file!: string | null;
  /** Durations such as `7d`. */
  retention!: { raw: string; hourly: string };
  uptime_seconds!: number;
  log_level!: string;
}

export class StatsDto {
  sensors!: number;
  results!: number;
  incidents!: number;
  oldest_sample!: string | null;
  newest_sample!: string | null;
  database_bytes!: number;
}

export class SettingsDto {
  ui!: UiSettingsDto;
  /** Administrators only: the API key in clear, or null when none is set. */
  api_key?: string | null;
  /** Whether a metrics token is set, and since when; the token is shown only when made. */
  metrics_token!: MetricsTokenStatusDto;
  runtime!: RuntimeInfoDto;
  stats!: StatsDto;
}
