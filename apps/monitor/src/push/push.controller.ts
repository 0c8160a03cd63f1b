import { applyDecorators, Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiQuery,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { RequireAccess } from '../core/http/access.decorator';
import { OkDto } from '../core/http/ok.dto';
import { PushBodyDto } from './dto/push.dto';
import { PushRateError, PushService } from './push.service';

const QUERY = applyDecorators(
  ApiQuery({ name: 'status', required: false, enum: ['up', 'down'] }),
  ApiQuery({ name: 'msg', required: false, type: String, description: 'at most 200 characters' }),
  ApiQuery({ name: 'latency_ms', required: false, type: Number }),
);
const TOO_MANY = ApiTooManyRequestsResponse({
  description: 'more than 10 pushes in one second to this token; nothing recorded',
  headers: { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } },
});
const UNKNOWN = ApiNotFoundResponse({ description: 'unknown token, or its sensor is paused' });

/** Push sensors' URLs: no authentication but the token in the path. */
@ApiTags('push')
@Controller('api/push')
export class PushController {
  constructor(private readonly pushes: PushService) {}

  /** Records a result from the query string: status (up, down), msg, latency_ms. */
  @Get(':token')
  @RequireAccess('public')
  @QUERY
  @TOO_MANY
  @UNKNOWN
  @ApiOkResponse({ type: OkDto })
  @ApiBadRequestResponse({ description: 'status, msg or latency_ms invalid' })
  get(
    @Param('token') token: string,
    @Query() query: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OkDto> {
    return this.answer(reply, () => this.pushes.accept(token, query));
  }

  /** Records a result from the query string or a JSON body (a body field wins). */
  @Post(':token')
  @RequireAccess('public')
  @HttpCode(200)
  @QUERY
  @TOO_MANY
  @UNKNOWN
  @ApiBody({ type: PushBodyDto, required: false })
  @ApiOkResponse({ type: OkDto })
  @ApiBadRequestResponse({ description: 'status, msg or latency_ms invalid, or an unknown body field' })
  post(
    @Param('token') token: string,
    @Query() query: unknown,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OkDto> {
    return this.answer(reply, () => this.pushes.accept(token, query, body));
  }

  private async answer(reply: FastifyReply, accept: () => Promise<void>): Promise<OkDto> {
    void reply.header('cache-control', 'no-store');
    try {
      await accept();
    } catch (error) {
      if (error instanceof PushRateError) void reply.header('retry-after', String(error.retryAfter));
      throw error;
    }
    return { ok: true };
  }
}
