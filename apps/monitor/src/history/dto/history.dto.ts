import {
  HISTORY_RANGES,
  type HistoryRange,
  type HistoryTier,
  type SeriesPoint,
  type SeriesResponse,
  type StoredProbeResult,
  type UptimeResponse,
} from '@monitor/contracts';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { integerRangeMessage, toQueryInteger } from '../../core/http/query-integer';
import { IncidentDto } from '../../incidents/dto/incident.dto';
import { ProbeResultDto } from '../../sensors/dto/sensor-view.dto';

export const RESULTS_LIMIT = { min: 1, max: 1000, default: 40 } as const;
const limitMessage = integerRangeMessage('limit', RESULTS_LIMIT);

export class ResultsQueryDto {
  /** Results returned, newest first: 1 to 1000 (default 40). */
  @IsOptional()
  @Transform(toQueryInteger)
  @IsInt(limitMessage)
  @Min(RESULTS_LIMIT.min, limitMessage)
  @Max(RESULTS_LIMIT.max, limitMessage)
  limit?: number;
}

export class StoredProbeResultDto extends ProbeResultDto implements StoredProbeResult {
  /** The `instance_name` of the instance that probed it; '' in single-instance mode and for sample data. */
  instance!: string;
}

export class RangeQueryDto {
  /** `1h`, `24h` (default), `7d`, `30d`, `90d`, `1y` or `all`. */
  @IsOptional()
  @IsIn(HISTORY_RANGES, { message: `range must be one of ${HISTORY_RANGES.join(', ')}` })
  range?: HistoryRange;
}

export class SeriesPointDto implements SeriesPoint {
  /** Start of the bucket. */
  ts!: string;
  /** Samples in the bucket; 0 for an empty bucket, whose other fields are null. */
  count!: number;
  up!: number | null;
  /** Percentage of successful samples. */
  uptime!: number | null;
  avg_ms!: number | null;
  min_ms!: number | null;
  max_ms!: number | null;
}

export class SeriesResponseDto implements SeriesResponse {
  range!: HistoryRange;
  /** The one tier read: `raw`, `hourly` or `daily`. */
  tier!: HistoryTier;
  from!: string;
  to!: string;
  step_seconds!: number;
  points!: SeriesPointDto[];
}

class UptimeFiguresDto {
  /** Null when the window holds no samples. */
  percent!: number | null;
  count!: number;
  up!: number;
}

class LatencyFiguresDto {
  avg_ms!: number | null;
  min_ms!: number | null;
  max_ms!: number | null;
}

class IncidentFiguresDto {
  count!: number;
  /** Newest first, at most 100. */
  items!: IncidentDto[];
}

class DowntimeDto {
  seconds!: number;
}

export class UptimeResponseDto implements UptimeResponse {
  range!: HistoryRange;
  tier!: HistoryTier;
  from!: string;
  to!: string;
  uptime!: UptimeFiguresDto;
  /** Over successful samples. */
  latency!: LatencyFiguresDto;
  /** Incidents overlapping the window. */
  incidents!: IncidentFiguresDto;
  downtime!: DowntimeDto;
}
