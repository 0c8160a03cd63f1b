import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequireAccess } from '../core/http/access.decorator';
import { PublicStatusPageDto } from './dto/public-status-page.dto';
import { REFRESH_SCRIPT } from '@monitor/domain';
import { bodyOf, sendCached } from './http-caching';
import { PublicStatusService, type BadgeKind } from './public-status.service';

const SVG = 'image/svg+xml; charset=utf-8';
const REFRESH_BODY = bodyOf(REFRESH_SCRIPT);

/**
 * Published status pages for anyone: the JSON, the HTML page and the badges. Answers carry a
 * few seconds of shared caching and an ETag; the views behind them are cached in memory.
 */
@ApiTags('public status pages')
@Controller()
export class PublicStatusController {
  constructor(private readonly service: PublicStatusService) {}

  /** A published page's state: display names and states only. 404 when unknown or unpublished. */
  @Get('api/public/status-pages/:slug')
  @RequireAccess('public')
  @ApiOkResponse({ type: PublicStatusPageDto })
  async json(
    @Param('slug') slug: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    sendCached(request, reply, await this.service.json(slug), 'application/json; charset=utf-8');
  }

  /** The page's own refresh script (every 60 s while visible); the page reads without it. */
  @Get('status/refresh.js')
  @RequireAccess('public')
  @ApiProduces('text/javascript')
  refreshScript(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    sendCached(request, reply, REFRESH_BODY, 'text/javascript; charset=utf-8');
  }

  /** The page as complete HTML in its language or the visitor's; an HTML 404 page otherwise. */
  @Get('status/:slug')
  @RequireAccess('public')
  @ApiProduces('text/html')
  async page(
    @Param('slug') slug: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const answer = await this.service.html(slug, request.headers['accept-language']);
    if (answer.negotiated) void reply.header('vary', 'accept-language');
    if (!answer.found) {
      void reply
        .code(404)
        .header('cache-control', 'no-store')
        .header('content-type', 'text/html; charset=utf-8')
        .send(answer.body.body);
      return;
    }
    sendCached(request, reply, answer.body, 'text/html; charset=utf-8');
  }

  /** "up"/"down" (other states grey), labelled with the sensor's name. */
  @Get('badge/:slug/:sensor/status.svg')
  @RequireAccess('public')
  @ApiProduces('image/svg+xml')
  statusBadge(
    @Param('slug') slug: string,
    @Param('sensor') sensor: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.badge('status', slug, sensor, undefined, request, reply);
  }

  /** Percent up over 1, 30 (default) or 90 days; another window is a 400. */
  @Get('badge/:slug/:sensor/uptime.svg')
  @RequireAccess('public')
  @ApiProduces('image/svg+xml')
  uptimeBadge(
    @Param('slug') slug: string,
    @Param('sensor') sensor: string,
    @Query('window') window: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.badge('uptime', slug, sensor, window, request, reply);
  }

  /** The average latency of the last 24 hours. */
  @Get('badge/:slug/:sensor/latency.svg')
  @RequireAccess('public')
  @ApiProduces('image/svg+xml')
  latencyBadge(
    @Param('slug') slug: string,
    @Param('sensor') sensor: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.badge('latency', slug, sensor, undefined, request, reply);
  }

  private async badge(
    kind: BadgeKind,
    slug: string,
    sensor: string,
    window: string | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const body = await this.service.badge(slug, sensor, kind, window);
    // Badges are embedded in other sites' pages; everything else stays same-origin.
    void reply.header('cross-origin-resource-policy', 'cross-origin');
    sendCached(request, reply, body, SVG);
  }
}
