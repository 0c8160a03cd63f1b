import { Body, Controller, Delete, Get, Param, ParseIntPipe, Post, Put } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { RequireAccess } from '../core/http/access.decorator';
import { OkDto } from '../core/http/ok.dto';
import {
  AnnouncementInputDto,
  CreateStatusPageDto,
  StatusPageAnnouncementDto,
  StatusPageDto,
  StatusPagesResponseDto,
  UpdateStatusPageDto,
} from './dto/status-page.dto';
import { StatusPagesService } from './status-pages.service';

@ApiTags('status pages')
@Controller('api')
export class StatusPagesController {
  constructor(private readonly pages: StatusPagesService) {}

  /** Every status page with its sections and announcements, sorted by slug. */
  @Get('status-pages')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: StatusPagesResponseDto })
  async list(): Promise<StatusPagesResponseDto> {
    return { status_pages: await this.pages.list() };
  }

  /** One status page with its sections and announcements (newest first). */
  @Get('status-pages/:id')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: StatusPageDto })
  @ApiNotFoundResponse({ description: 'no status page with that id' })
  get(@Param('id', ParseIntPipe) id: number): Promise<StatusPageDto> {
    return this.pages.get(id);
  }

  /** Creates a page (slug and title required); unknown sensor ids are a 400 naming them, a taken slug a 409. */
  @Post('status-pages')
  @RequireAccess('admin')
  @ApiCreatedResponse({ type: StatusPageDto })
  @ApiConflictResponse({ description: 'a status page with that slug exists' })
  create(@Body() body: CreateStatusPageDto): Promise<StatusPageDto> {
    return this.pages.create(body);
  }

  /** Absent fields keep their value; sections, when sent, replace every section. */
  @Put('status-pages/:id')
  @RequireAccess('admin')
  @ApiOkResponse({ type: StatusPageDto })
  @ApiNotFoundResponse({ description: 'no status page with that id' })
  @ApiConflictResponse({
    description: 'the page is declared in the configuration file, or the new slug is taken',
  })
  update(@Param('id', ParseIntPipe) id: number, @Body() body: UpdateStatusPageDto): Promise<StatusPageDto> {
    return this.pages.update(id, body);
  }

  /** Deletes the page with its sections and announcements. */
  @Delete('status-pages/:id')
  @RequireAccess('admin')
  @ApiOkResponse({ type: OkDto })
  @ApiNotFoundResponse({ description: 'no status page with that id' })
  @ApiConflictResponse({ description: 'the page is declared in the configuration file' })
  async remove(@Param('id', ParseIntPipe) id: number): Promise<OkDto> {
    await this.pages.remove(id);
    return { ok: true };
  }

  /** Adds an announcement, shown at the top of the page until deleted. */
  @Post('status-pages/:id/announcements')
  @RequireAccess('operator')
  @ApiCreatedResponse({ type: StatusPageAnnouncementDto })
  @ApiNotFoundResponse({ description: 'no status page with that id' })
  announce(
    @Param('id', ParseIntPipe) id: number,
    @Body() body: AnnouncementInputDto,
  ): Promise<StatusPageAnnouncementDto> {
    return this.pages.announce(id, body);
  }

  /** Deletes an announcement of the page; one of another page is a 404. */
  @Delete('status-pages/:id/announcements/:aid')
  @RequireAccess('operator')
  @ApiOkResponse({ type: OkDto })
  @ApiNotFoundResponse({ description: 'no such page, or the announcement is not on that page' })
  async withdraw(
    @Param('id', ParseIntPipe) id: number,
    @Param('aid', ParseIntPipe) aid: number,
  ): Promise<OkDto> {
    await this.pages.withdraw(id, aid);
    return { ok: true };
  }
}
