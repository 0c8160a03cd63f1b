import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { SITE_KINDS } from '@monitor/contracts';
import { RequireAccess } from '../core/http/access.decorator';
import { MapSettingsInputDto } from './dto/map.dto';
import {
  CreateSiteDto,
  DeleteSiteQueryDto,
  MapSettingsDto,
  SiteDeletedDto,
  SiteDetailDto,
  SitesResponseDto,
  UpdateSiteDto,
} from './dto/site.dto';
import { MapSettingsService } from './map-settings.service';
import { SitesService } from './sites.service';

@ApiTags('sites and map')
@Controller('api')
export class SitesController {
  constructor(
    private readonly sites: SitesService,
    private readonly map: MapSettingsService,
  ) {}

  /** Every site (sorted by name) with its sensor count, the site kinds, and the map settings. */
  @Get('sites')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: SitesResponseDto })
  async list(): Promise<SitesResponseDto> {
    return { sites: await this.sites.list(), kinds: [...SITE_KINDS], map: this.map.get() };
  }

  /** Creates a site; kind defaults to local; lat and lon both or neither. A duplicate name is a 409. */
  @Post('sites')
  @RequireAccess('admin')
  @ApiCreatedResponse({ type: SiteDetailDto })
  @ApiConflictResponse({ description: 'a site with that name exists' })
  create(@Body() body: CreateSiteDto): Promise<SiteDetailDto> {
    return this.sites.create(body);
  }

  /** Renames or moves a site (absent fields keep their value); a rename shows in its sensors. */
  @Put('sites/:name')
  @RequireAccess('admin')
  @ApiOkResponse({ type: SiteDetailDto })
  @ApiConflictResponse({
    description: 'the site is declared in the configuration file, or the new name is taken',
  })
  update(@Param('name') name: string, @Body() body: UpdateSiteDto): Promise<SiteDetailDto> {
    return this.sites.update(name, body);
  }

  /** Deletes a site; one that still has sensors needs unassign=1, which leaves them without a site. */
  @Delete('sites/:name')
  @RequireAccess('admin')
  @ApiOkResponse({ type: SiteDeletedDto })
  @ApiConflictResponse({
    description: 'sensors remain (without unassign=1), or the site is declared in the configuration file',
  })
  remove(@Param('name') name: string, @Query() query: DeleteSiteQueryDto): Promise<SiteDeletedDto> {
    return this.sites.remove(name, query.unassign === '1');
  }

  /** Installation-wide map settings; absent fields keep their value. A saved tile origin joins the CSP at once. */
  @Put('map')
  @RequireAccess('admin')
  @ApiOkResponse({ type: MapSettingsDto })
  saveMap(@Body() body: MapSettingsInputDto): Promise<MapSettingsDto> {
    return this.map.save(body);
  }
}
