import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { RequireAccess } from '../core/http/access.decorator';
import { currentPrincipal } from '../core/http/principal';
import { SearchQueryDto, SearchResponseDto } from './dto/search.dto';
import { SearchService } from './search.service';

@ApiTags('search')
@Controller('api/search')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  /**
   * Sensors, sites, channels, incidents, recent results and (administrators only) accounts whose
   * searchable fields contain q; at most 20 per kind.
   */
  @Get()
  @RequireAccess('viewer')
  @ApiOkResponse({ type: SearchResponseDto })
  find(@Req() request: FastifyRequest, @Query() query: SearchQueryDto): Promise<SearchResponseDto> {
    return this.search.search(query.q, currentPrincipal(request));
  }
}
