import type { SearchHit, SearchKind, SearchResponse } from '@monitor/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

export const SEARCH_TEXT = { min: 2, max: 64 } as const;

export class SearchQueryDto {
  /**
   * Literal, case-insensitive text (% and _ are ordinary characters). Shorter than 2 characters:
   * an empty answer, not an error; at most 64 characters.
   */
  @IsOptional()
  @IsString({ message: 'q must be a single text value' })
  @MaxLength(SEARCH_TEXT.max, { message: `q must be at most ${SEARCH_TEXT.max} characters` })
  q?: string;
}

export class SearchHitDto implements SearchHit {
  /** `sensor`, `site`, `channel`, `incident`, `result` or `user`. */
  kind!: SearchKind;
  /** Sensor id (also for a result), site name, channel id, incident id, or username. */
  @ApiProperty({ oneOf: [{ type: 'integer' }, { type: 'string' }] })
  ref!: number | string;
  title!: string;
  sub!: string;
  /**
   * sensor: its status; site: empty; channel: `enabled` or `disabled`; incident: `open` or
   * `resolved`; result: `up` (success) or `down`; user: `active` or `disabled`.
   */
  state!: string;
  /** The time the hit is about (last check, last delivery error, start, result time, last sign-in), or null. */
  at!: string | null;
}

export class SearchResponseDto implements SearchResponse {
  /** At most 20 per kind, grouped by kind. */
  hits!: SearchHitDto[];
  /** True when any kind had more than 20 matches. */
  truncated!: boolean;
}
