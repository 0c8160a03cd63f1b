import { Body, Controller, Get, HttpCode, Post, Put, Req } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { RequireAccess } from '../core/http/access.decorator';
import { OkDto } from '../core/http/ok.dto';
import { UiSettingsDto } from './dto/ui-settings.dto';
import { currentPrincipal } from '../core/http/principal';
import type { User } from '../users/users.repository';
import { SettingsDto, TourProgressDto, UpdateSettingsDto } from './dto/settings.dto';
import { SettingsService } from './settings.service';

@ApiTags('settings')
@Controller('api')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  /** UI preferences of the caller, the API key (administrators only), runtime facts and statistics. */
  @Get('settings')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: SettingsDto })
  get(@Req() request: FastifyRequest): Promise<SettingsDto> {
    return this.settings.settings(currentPrincipal<User>(request));
  }

  /** Writes `ui` keys (theme, live, borders, language) to the calling account. */
  @Put('settings')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: UiSettingsDto, description: 'the resulting UI settings' })
  async update(
    @Req() request: FastifyRequest,
    @Body() body: UpdateSettingsDto,
  ): Promise<{ ui: UiSettingsDto }> {
    return { ui: await this.settings.updateUi(currentPrincipal<User>(request), body.ui) };
  }

  /** Records that the account finished this version of the guided tour. */
  @Post('onboarding/tour')
  @RequireAccess('viewer')
  @HttpCode(200)
  @ApiOkResponse({ type: OkDto })
  async tour(@Req() request: FastifyRequest, @Body() body: TourProgressDto): Promise<OkDto> {
    await this.settings.recordTour(currentPrincipal<User>(request), body.version);
    return { ok: true };
  }
}
