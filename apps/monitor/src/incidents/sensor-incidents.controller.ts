import { Controller, Get, Param, ParseIntPipe, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequireAccess } from '../core/http/access.decorator';
import { IncidentDto } from './dto/incident.dto';
import { IncidentLimitQueryDto } from './dto/list-incidents.dto';
import { IncidentsService } from './incidents.service';

@ApiTags('incidents')
@Controller('api/sensors')
export class SensorIncidentsController {
  constructor(private readonly incidents: IncidentsService) {}

  /** That sensor's outages, newest first. */
  @Get(':id/incidents')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: [IncidentDto] })
  list(@Param('id', ParseIntPipe) id: number, @Query() query: IncidentLimitQueryDto): Promise<IncidentDto[]> {
    return this.incidents.listForSensor(id, query.limit);
  }
}
