import {
  Body,
  Controller,
  Delete,
  ForbiddenException,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Patch,
  Post,
  Put,
  Req,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { InvalidInputError } from '@monitor/domain';
import type { FastifyRequest } from 'fastify';
import { RequireAccess } from '../core/http/access.decorator';
import { OkDto } from '../core/http/ok.dto';
import { actorName, currentPrincipal, hasRole } from '../core/http/principal';
import { Clock } from '../core/clock/clock';
import { IncidentDto } from '../incidents/dto/incident.dto';
import { IncidentsService } from '../incidents/incidents.service';
import {
  AcknowledgeDto,
  PatchSensorDto,
  SensorInputDto,
  SensorOrderDto,
  ValidateSensorDto,
} from './dto/sensor.dto';
import { ProbeResultDto, SensorDto, SummaryDto, ValidateResultDto } from './dto/sensor-view.dto';
import { PushTokenDto } from './dto/push-token.dto';
import { SensorSummaryService } from './sensor-summary.service';
import { SensorsService } from './sensors.service';

@ApiTags('sensors')
@Controller('api')
export class SensorsController {
  constructor(
    private readonly sensors: SensorsService,
    private readonly summaries: SensorSummaryService,
    private readonly incidents: IncidentsService,
    private readonly clock: Clock,
  ) {}

  /** Every sensor with its status, last message, runtime values and sparkline, in dashboard order. */
  @Get('sensors')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: [SensorDto] })
  list(): Promise<SensorDto[]> {
    return this.sensors.list();
  }

  /** Creates a sensor; answers it with its id. */
  @Post('sensors')
  @RequireAccess('admin')
  @ApiCreatedResponse({ type: SensorDto })
  create(@Body() body: SensorInputDto): Promise<SensorDto> {
    return this.sensors.create(body);
  }

  /** Checks a draft sensor as create would; with `probe: true` also runs it once. Nothing is stored. */
  @Post('sensors/validate')
  @RequireAccess('operator')
  @HttpCode(200)
  @ApiOkResponse({ type: ValidateResultDto })
  @ApiForbiddenResponse({
    description:
      'refused: the operator role or higher is needed, or a cookie-authenticated write whose Origin is another site; below administrator also a draft probe with request options, checks of the answer or a socket path',
  })
  @ApiBadRequestResponse({
    description:
      'invalid body or parameters; the error names the field; below administrator also a draft probe of a link-local or cloud metadata address',
  })
  validate(@Body() body: ValidateSensorDto, @Req() request: FastifyRequest): Promise<ValidateResultDto> {
    const { probe, ...draft } = body;
    return this.sensors.validate(draft, probe === true, hasRole(currentPrincipal(request), 'admin'));
  }

  /** One sensor with its status, last message and sparkline. */
  @Get('sensors/:id')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: SensorDto })
  get(@Param('id', ParseIntPipe) id: number): Promise<SensorDto> {
    return this.sensors.get(id);
  }

  /** Partial update: an absent field keeps its value; "" and [] clear. */
  @Put('sensors/:id')
  @RequireAccess('admin')
  @ApiOkResponse({ type: SensorDto })
  @ApiConflictResponse({ description: 'the sensor is declared in the configuration file' })
  update(@Param('id', ParseIntPipe) id: number, @Body() body: SensorInputDto): Promise<SensorDto> {
    return this.sensors.update(id, body);
  }

  /** Pause or resume: exactly one field, `enabled`; any other field is refused with 403. */
  @Patch('sensors/:id')
  @RequireAccess('operator')
  @ApiBody({ type: PatchSensorDto })
  @ApiOkResponse({ type: SensorDto })
  @ApiConflictResponse({ description: 'the sensor is declared in the configuration file' })
  @ApiForbiddenResponse({
    description: 'a field other than enabled, the operator role missing, or a cross-site write',
  })
  patch(@Param('id', ParseIntPipe) id: number, @Body() body: unknown): Promise<SensorDto> {
    const fields = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
    const others = fields.filter((field) => field !== 'enabled');
    if (others.length > 0)
      throw new ForbiddenException(`PATCH may change only enabled, not ${others.join(', ')}`);
    const enabled = (body as { enabled?: unknown } | undefined)?.enabled;
    if (typeof enabled !== 'boolean') throw new InvalidInputError('enabled must be true or false');
    return this.sensors.setEnabled(id, enabled);
  }

  /** Deletes the sensor with its results and incidents. */
  @Delete('sensors/:id')
  @RequireAccess('admin')
  @ApiOkResponse({ type: OkDto })
  @ApiConflictResponse({ description: 'the sensor is declared in the configuration file' })
  async remove(@Param('id', ParseIntPipe) id: number): Promise<OkDto> {
    await this.sensors.remove(id);
    return { ok: true };
  }

  /** Run now: stores one result; never opens or closes an incident and never alerts. */
  @Post('sensors/:id/probe')
  @RequireAccess('operator')
  @HttpCode(200)
  @ApiOkResponse({ type: ProbeResultDto })
  probe(@Param('id', ParseIntPipe) id: number): Promise<ProbeResultDto> {
    return this.sensors.probeNow(id);
  }

  /** A new token for a push sensor (shown this once); the old one stops working at once. */
  @Post('sensors/:id/push-token')
  @RequireAccess('admin')
  @HttpCode(200)
  @ApiOkResponse({ type: PushTokenDto })
  @ApiBadRequestResponse({ description: 'the sensor is not a push sensor' })
  @ApiConflictResponse({ description: 'the sensor is declared in the configuration file' })
  rotatePushToken(@Param('id', ParseIntPipe) id: number): Promise<PushTokenDto> {
    return this.sensors.rotatePushToken(id);
  }

  /** Acknowledges whatever the sensor has open; 409 when nothing is down. */
  @Post('sensors/:id/ack')
  @RequireAccess('operator')
  @HttpCode(200)
  @ApiOkResponse({ type: IncidentDto })
  @ApiConflictResponse({ description: 'the sensor has no open incident' })
  acknowledge(
    @Req() request: FastifyRequest,
    @Param('id', ParseIntPipe) id: number,
    @Body() body: AcknowledgeDto,
  ): Promise<IncidentDto> {
    return this.incidents.acknowledgeSensor(id, actorName(currentPrincipal(request)), body?.note);
  }

  /** Sets the dashboard order. */
  @Put('sensor-order')
  @RequireAccess('admin')
  @ApiOkResponse({ type: OkDto })
  async order(@Body() body: SensorOrderDto): Promise<OkDto> {
    await this.sensors.setOrder(body.ids);
    return { ok: true };
  }

  /** Sensors and sites together; the dashboard fetches it on connect and every minute. */
  @Get('summary')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: SummaryDto })
  async summary(): Promise<SummaryDto> {
    const [sensors, sites] = await Promise.all([this.summaries.summaryList(), this.summaries.sites()]);
    return { sensors, sites, generated_at: new Date(this.clock.now()).toISOString() };
  }
}
