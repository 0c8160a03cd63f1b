import type {
  MapSettings,
  SiteDeleted,
  SiteDetail,
  SiteInput,
  SiteKind,
  SitesResponse,
} from '@monitor/contracts';
import { Transform, type TransformFnParams } from 'class-transformer';
import {
  Allow,
  IsDefined,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';

export const SITE_NAME_MAX = 100;

const trim = ({ value }: TransformFnParams): unknown => (typeof value === 'string' ? value.trim() : value);
const present = (_object: object, value: unknown): boolean => value !== undefined;
const KIND_CHOICES = ['local', 'external', ''];
const kindMessage = { message: 'kind must be local or external' };
const nameMessages = {
  string: { message: 'name must be a string' },
  empty: { message: 'name must not be empty' },
  long: { message: `name must be at most ${SITE_NAME_MAX} characters` },
};
const coordinate = (field: 'lat' | 'lon', limit: number) => ({
  message: `${field} must be a number from -${limit} to ${limit}`,
});
const numberOptions = { allowNaN: false, allowInfinity: false };

/**
 * Fields shared by create and update; name and kind differ in whether they are required.
 * class-validator runs a property's decorators bottom-up: the basic type check sits lowest.
 */
abstract class SiteFieldsDto implements SiteInput {
  /** Latitude, -90 to 90; with lon, or both absent (null is absent). 0 is a real coordinate. */
  @IsOptional()
  @Max(90, coordinate('lat', 90))
  @Min(-90, coordinate('lat', 90))
  @IsNumber(numberOptions, coordinate('lat', 90))
  lat?: number | null;

  /** Longitude, -180 to 180; with lat, or both absent (null is absent). */
  @IsOptional()
  @Max(180, coordinate('lon', 180))
  @Min(-180, coordinate('lon', 180))
  @IsNumber(numberOptions, coordinate('lon', 180))
  lon?: number | null;

  // Read-only fields: accepted (a GET response can be sent back) and ignored.
  @Allow() sensor_count?: unknown;
  @Allow() managed_by?: unknown;
}

/** POST /api/sites */
export class CreateSiteDto extends SiteFieldsDto {
  /** Unique, 1 to 100 characters after trimming. */
  @Transform(trim)
  @IsDefined({ message: 'name is required' })
  @MaxLength(SITE_NAME_MAX, nameMessages.long)
  @MinLength(1, nameMessages.empty)
  @IsString(nameMessages.string)
  name!: string;

  /** `local` (default, also for '') or `external`. */
  @ValidateIf(present)
  @IsIn(KIND_CHOICES, kindMessage)
  kind?: SiteKind | '';
}

/** PUT /api/sites/{name}: absent fields keep their value; lat and lon change together (both null clears). */
export class UpdateSiteDto extends SiteFieldsDto {
  /** A new name (rename); carried into every sensor of the site. */
  @Transform(trim)
  @ValidateIf(present)
  @MaxLength(SITE_NAME_MAX, nameMessages.long)
  @MinLength(1, nameMessages.empty)
  @IsString(nameMessages.string)
  name?: string;

  /** `local` ('' too) or `external`. */
  @ValidateIf(present)
  @IsIn(KIND_CHOICES, kindMessage)
  kind?: SiteKind | '';
}

export class DeleteSiteQueryDto {
  /** `1`: leave the site's sensors without a site and delete it anyway. */
  @IsOptional()
  @IsIn(['1'], { message: 'unassign must be 1 when given' })
  unassign?: string;
}

export class SiteDetailDto implements SiteDetail {
  name!: string;
  /** `local` or `external`. */
  kind!: SiteKind;
  lat!: number | null;
  lon!: number | null;
  /** Sensors that refer to the site. */
  sensor_count!: number;
  /** `config` when declared in the configuration file (cannot be renamed or deleted). */
  managed_by!: string | null;
}

export class SiteDeletedDto implements SiteDeleted {
  deleted!: string;
  /** True when the site's sensors were left without a site. */
  unassigned!: boolean;
}

export class MapSettingsDto implements MapSettings {
  /** Tile URL template ({z}, {x}, {y}, optional {s}); '' draws no tiles. */
  tile_url!: string;
  attribution!: string;
  /** `on` (default) or `off`. */
  borders!: 'on' | 'off';
}

export class SitesResponseDto implements SitesResponse {
  /** Sorted by name. */
  sites!: SiteDetailDto[];
  kinds!: SiteKind[];
  /** The map settings; every role reads them because the browser fetches the tiles. */
  map!: MapSettingsDto;
}
