import { Body, Controller, Delete, Get, Param, ParseIntPipe, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequireAccess } from '../core/http/access.decorator';
import { OkDto } from '../core/http/ok.dto';
import { CreateMaintenanceWindowDto, MaintenanceWindowDto } from './dto/maintenance.dto';
import { MaintenanceService } from './maintenance.service';

@ApiTags('maintenance')
@Controller('api/maintenance')
export class MaintenanceController {
  constructor(private readonly maintenance: MaintenanceService) {}

  /** Every maintenance window. */
  @Get()
  @RequireAccess('viewer')
  @ApiOkResponse({ type: [MaintenanceWindowDto] })
  list(): Promise<MaintenanceWindowDto[]> {
    return this.maintenance.list();
  }

  /** Inside a window the listed sensors open no incidents and send no alerts; an open outage closes when it begins. */
  @Post()
  @RequireAccess('admin')
  @ApiCreatedResponse({ type: MaintenanceWindowDto })
  create(@Body() body: CreateMaintenanceWindowDto): Promise<MaintenanceWindowDto> {
    return this.maintenance.create(body);
  }

  /** Deletes a maintenance window. */
  @Delete(':id')
  @RequireAccess('admin')
  @ApiOkResponse({ type: OkDto })
  @ApiConflictResponse({ description: 'the window is declared in the configuration file' })
  async remove(@Param('id', ParseIntPipe) id: number): Promise<OkDto> {
    await this.maintenance.remove(id);
    return { ok: true };
  }
}
