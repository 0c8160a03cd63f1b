import { Controller, Get, Param, ParseIntPipe, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequireAccess } from '../core/http/access.decorator';
import {
  RangeQueryDto,
  ResultsQueryDto,
  RESULTS_LIMIT,
  SeriesResponseDto,
  StoredProbeResultDto,
  UptimeResponseDto,
} from './dto/history.dto';
import { HistoryService } from './history.service';

const DEFAULT_RANGE = '24h';

@ApiTags('history')
@Controller('api/sensors')
export class HistoryController {
  constructor(private readonly history: HistoryService) {}

  /** Recent raw results, newest first. */
  @Get(':id/results')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: [StoredProbeResultDto] })
  results(
    @Param('id', ParseIntPipe) id: number,
    @Query() query: ResultsQueryDto,
  ): Promise<StoredProbeResultDto[]> {
    return this.history.results(id, query.limit ?? RESULTS_LIMIT.default);
  }

  /** Chart points for a range, downsampled; read from exactly one tier. */
  @Get(':id/series')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: SeriesResponseDto })
  series(@Param('id', ParseIntPipe) id: number, @Query() query: RangeQueryDto): Promise<SeriesResponseDto> {
    return this.history.series(id, query.range ?? DEFAULT_RANGE);
  }

  /** Uptime, latency statistics, incidents and downtime for a range; read from exactly one tier. */
  @Get(':id/uptime')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: UptimeResponseDto })
  uptime(@Param('id', ParseIntPipe) id: number, @Query() query: RangeQueryDto): Promise<UptimeResponseDto> {
    return this.history.uptime(id, query.range ?? DEFAULT_RANGE);
  }
}
