import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { RequireAccess } from '../core/http/access.decorator';
import { actorName, currentPrincipal } from '../core/http/principal';
import { AcknowledgeDto } from '../sensors/dto/sensor.dto';
import { IncidentDto } from './dto/incident.dto';
import { ListIncidentsQueryDto } from './dto/list-incidents.dto';
import { IncidentsService } from './incidents.service';

@ApiTags('incidents')
@Controller('api/incidents')
export class IncidentsController {
  constructor(private readonly incidents: IncidentsService) {}

  /** Every outage, newest first, narrowed by the filters given (they combine). */
  @Get()
  @RequireAccess('viewer')
  @ApiOkResponse({ type: [IncidentDto] })
  list(@Query() query: ListIncidentsQueryDto): Promise<IncidentDto[]> {
    return this.incidents.list(query);
  }

  /** Acknowledges an open incident: its reminders stop; the recovery alert still goes out. */
  @Post(':id/ack')
  @RequireAccess('operator')
  @HttpCode(200)
  @ApiOkResponse({ type: IncidentDto })
  @ApiConflictResponse({ description: 'the incident is resolved' })
  acknowledge(
    @Req() request: FastifyRequest,
    @Param('id', ParseIntPipe) id: number,
    @Body() body: AcknowledgeDto,
  ): Promise<IncidentDto> {
    return this.incidents.acknowledge(id, actorName(currentPrincipal(request)), body?.note);
  }

  /** Takes the acknowledgement back; reminders restart at once. */
  @Delete(':id/ack')
  @RequireAccess('operator')
  @ApiOkResponse({ type: IncidentDto })
  @ApiConflictResponse({ description: 'the incident is resolved' })
  unacknowledge(@Param('id', ParseIntPipe) id: number): Promise<IncidentDto> {
    return this.incidents.unacknowledge(id);
  }
}
