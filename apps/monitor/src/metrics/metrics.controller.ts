import { Readable } from 'node:stream';
import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Registry } from 'prom-client';
import { AcceptsMetricsToken, RequireAccess } from '../core/http/access.decorator';
import { MetricsService } from './metrics.service';

@ApiTags('metrics')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  /**
   * Prometheus metrics in the text exposition format. `Authorization: Bearer` with the metrics
   * token or the API key; a signed-in session works too.
   */
  @Get()
  @RequireAccess('viewer')
  @AcceptsMetricsToken()
  @ApiProduces(Registry.PROMETHEUS_CONTENT_TYPE)
  @ApiOkResponse({ description: 'the metrics', schema: { type: 'string' } })
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    const pieces = await this.metrics.scrape();
    // Streamed piece by piece: ten thousand sensors are 12 MB, which neither one join nor one
    // compression in a single turn of the event loop should hold up.
    void reply
      .header('content-type', Registry.PROMETHEUS_CONTENT_TYPE)
      .header('cache-control', 'no-store')
      .send(Readable.from(pieces, { objectMode: false }));
  }
}
