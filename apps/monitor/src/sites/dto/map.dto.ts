import type { MapSettingsInput } from '@monitor/contracts';
import { IsIn, IsString, MaxLength, ValidateIf } from 'class-validator';

const present = (_object: object, value: unknown): boolean => value !== undefined;

/**
 * PUT /api/map: absent fields keep their stored value; unknown fields are refused. Decorators run
 * bottom-up, so the type check sits lowest.
 */
export class MapSettingsInputDto implements MapSettingsInput {
  /** http or https URL with {z}, {x} and {y} ({s} optional, cycling a, b, c); '' fetches no tiles. */
  @ValidateIf(present)
  @MaxLength(2000, { message: 'tile_url must be at most 2000 characters' })
  @IsString({ message: 'tile_url must be a string' })
  tile_url?: string;

  /** Credit shown on the map, plain text. */
  @ValidateIf(present)
  @MaxLength(500, { message: 'attribution must be at most 500 characters' })
  @IsString({ message: 'attribution must be a string' })
  attribution?: string;

  /** `on` or `off`: country borders and names on the map. */
  @ValidateIf(present)
  @IsIn(['on', 'off'], { message: 'borders must be on or off' })
  borders?: 'on' | 'off';
}
