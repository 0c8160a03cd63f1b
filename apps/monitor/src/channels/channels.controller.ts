import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Post, Put } from '@nestjs/common';
import {
  ApiBadGatewayResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { UpstreamError } from '@monitor/domain';
import { NotifierCatalogue } from '@monitor/notifiers';
import { RequireAccess } from '../core/http/access.decorator';
import { OkDto } from '../core/http/ok.dto';
import { ChannelsService } from './channels.service';
import { DeliveryService } from './delivery.service';
import { ChannelDto, ChannelInputDto, ChannelTypeDto } from './dto/channel.dto';

@ApiTags('alert channels')
@Controller('api')
export class ChannelsController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly delivery: DeliveryService,
    private readonly catalogue: NotifierCatalogue,
  ) {}

  /** Every channel; secret fields read "__stored__". */
  @Get('channels')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: [ChannelDto] })
  list(): Promise<ChannelDto[]> {
    return this.channels.list();
  }

  /** The channel types with their fields, Secret flags and a numbered setup recipe each. */
  @Get('channel-types')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: [ChannelTypeDto] })
  types(): ChannelTypeDto[] {
    return this.catalogue
      .types()
      .map((type) => ({ type, ...(this.catalogue.get(type)?.definition as Omit<ChannelTypeDto, 'type'>) }));
  }

  /** One channel; secret fields read "__stored__". */
  @Get('channels/:id')
  @RequireAccess('viewer')
  @ApiOkResponse({ type: ChannelDto })
  get(@Param('id', ParseIntPipe) id: number): Promise<ChannelDto> {
    return this.channels.get(id);
  }

  /** Creates a channel; the answer masks its secrets. */
  @Post('channels')
  @RequireAccess('admin')
  @ApiCreatedResponse({ type: ChannelDto })
  create(@Body() body: ChannelInputDto): Promise<ChannelDto> {
    return this.channels.create(body);
  }

  /** Absent fields keep their value; a secret sent back as "__stored__" keeps the stored one. */
  @Put('channels/:id')
  @RequireAccess('admin')
  @ApiOkResponse({ type: ChannelDto })
  @ApiConflictResponse({ description: 'the channel is declared in the configuration file' })
  update(@Param('id', ParseIntPipe) id: number, @Body() body: ChannelInputDto): Promise<ChannelDto> {
    return this.channels.update(id, body);
  }

  /** Deletes the channel; sensors stop sending to it. */
  @Delete('channels/:id')
  @RequireAccess('admin')
  @ApiOkResponse({ type: OkDto })
  @ApiConflictResponse({ description: 'the channel is declared in the configuration file' })
  async remove(@Param('id', ParseIntPipe) id: number): Promise<OkDto> {
    await this.channels.remove(id);
    return { ok: true };
  }

  /** Sends a real test message through an unsaved definition: {ok: true} or 502 naming the failure. */
  @Post('channels/test')
  @RequireAccess('admin')
  @HttpCode(200)
  @ApiOkResponse({ type: OkDto })
  @ApiBadGatewayResponse({
    description: 'the receiving service refused or failed; the error names the failure',
  })
  async testDraft(@Body() body: ChannelInputDto): Promise<OkDto> {
    const { draft } = this.channels.checkedDraft(body);
    return this.outcome(
      await this.delivery.test({
        type: draft.type,
        config: draft.config,
        titleTemplate: draft.title_template,
        bodyTemplate: draft.body_template,
      }),
    );
  }

  /** Sends a real test message through a saved channel, with its stored secrets. */
  @Post('channels/:id/test')
  @RequireAccess('admin')
  @HttpCode(200)
  @ApiOkResponse({ type: OkDto })
  @ApiBadGatewayResponse({
    description: 'the receiving service refused or failed; the error names the failure',
  })
  async test(@Param('id', ParseIntPipe) id: number): Promise<OkDto> {
    return this.outcome(await this.delivery.test(await this.channels.mustFind(id)));
  }

  private outcome(result: Awaited<ReturnType<DeliveryService['test']>>): OkDto {
    if (!result.ok) throw new UpstreamError(result.error.message);
    return { ok: true };
  }
}
