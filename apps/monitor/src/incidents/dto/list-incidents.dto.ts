import { HISTORY_RANGES, type HistoryRange } from '@monitor/contracts';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { integerRangeMessage, toQueryInteger } from '../../core/http/query-integer';

export const INCIDENT_STATES = ['all', 'open', 'resolved'] as const;
export type IncidentStateFilter = (typeof INCIDENT_STATES)[number];

export const INCIDENT_LIMIT = { min: 1, max: 1000, default: 50 } as const;
export const INCIDENT_TEXT_MAX = 200;

const limitMessage = integerRangeMessage('limit', INCIDENT_LIMIT);

/** `limit` alone: GET /api/sensors/{id}/incidents. */
export class IncidentLimitQueryDto {
  /** Rows returned, 1 to 1000 (default 50). */
  @IsOptional()
  @Transform(toQueryInteger)
  @IsInt(limitMessage)
  @Min(INCIDENT_LIMIT.min, limitMessage)
  @Max(INCIDENT_LIMIT.max, limitMessage)
  limit?: number;
}

/** Filters of GET /api/incidents; they combine (every given filter must hold). */
export class ListIncidentsQueryDto extends IncidentLimitQueryDto {
  /** `all` (default), `open` or `resolved`. */
  @IsOptional()
  @IsIn(INCIDENT_STATES, { message: `state must be one of ${INCIDENT_STATES.join(', ')}` })
  state?: IncidentStateFilter;

  /** `1`: the older spelling of state=open. */
  @IsOptional()
  @IsIn(['1'], { message: 'open must be 1 (the older spelling of state=open)' })
  open?: '1';

  /** Only the outages of this sensor id. */
  @IsOptional()
  @Transform(toQueryInteger)
  @IsInt({ message: 'sensor must be a sensor id (a whole number)' })
  sensor?: number;

  /** Outages that started inside the last 1h, 24h, 7d, 30d, 90d or 1y; `all` has no lower bound. */
  @IsOptional()
  @IsIn(HISTORY_RANGES, { message: `range must be one of ${HISTORY_RANGES.join(', ')}` })
  range?: HistoryRange;

  /** RFC 3339 timestamp: outages that started at or after it. Ignored when range is given. */
  @ValidateIf((query: ListIncidentsQueryDto) => query.range === undefined && query.since !== undefined)
  @IsString({ message: 'since must be an RFC 3339 timestamp, for example 2026-01-31T08:00:00Z' })
  since?: string;

  /** Literal, case-insensitive text (no wildcards) found in the cause, the sensor name or the note. */
  @IsOptional()
  @IsString({ message: 'q must be a single text value' })
  @MaxLength(INCIDENT_TEXT_MAX, { message: `q must be at most ${INCIDENT_TEXT_MAX} characters` })
  q?: string;
}
