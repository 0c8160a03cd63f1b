import { Controller, Get, HttpCode, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import {
  ApiBody,
  ApiConflictResponse,
  ApiInternalServerErrorResponse,
  ApiOkResponse,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequireAccess } from '../core/http/access.decorator';
import { principalOf } from '../core/http/principal';
import { setSessionCookie } from '../auth/session-cookie';
import { SessionService } from '../auth/session.service';
import { rememberFailure } from '../core/http/request-failure';
import { BackupService } from './backup.service';
import { BackupQueryDto, RestoreResultDto } from './dto/backup.dto';
import { isReadable, mediaTypeOf, restoreContentType } from './restore-body';
import { RestoreService, SafetyCopyError, UnsupportedMediaTypeError } from './restore.service';

/** History backups cover this many days unless the request says otherwise. */
const DEFAULT_DAYS = '30';

@ApiTags('backup')
@Controller('api')
export class BackupController {
  constructor(
    private readonly backups: BackupService,
    private readonly restores: RestoreService,
    private readonly sessions: SessionService,
  ) {}

  /**
   * The installation as one JSON document, secrets in clear text: settings, the API key, sites,
   * channels, sensors and accounts; with scope=history also incidents and hourly and daily rollups.
   */
  @Get('backup')
  @RequireAccess('admin')
  @ApiProduces('application/json')
  async backup(
    @Query() query: BackupQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    const { fileName, stream } = await this.backups.open(query.scope ?? 'config', query.days ?? DEFAULT_DAYS);
    void reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store');
    return new StreamableFile(stream, {
      type: 'application/json',
      disposition: `attachment; filename="${fileName}"`,
    });
  }

  /**
   * Replaces every table the document names (the body is the document itself, Content-Type
   * application/json, at most 64 MiB), after a safety copy of the database. Restored accounts lose
   * every session; the browser that restored gets a fresh cookie while its account stays enabled.
   */
  @Post('restore')
  @RequireAccess('admin')
  @HttpCode(200)
  @ApiOkResponse({ type: RestoreResultDto })
  @ApiBody({
    description: 'a document from GET /api/backup',
    schema: { type: 'object', additionalProperties: true },
  })
  @ApiConflictResponse({
    description: 'another restore is running, or the database stayed busy; nothing was restored',
  })
  @ApiPayloadTooLargeResponse({ description: 'the document is over 64 MiB; nothing was restored' })
  @ApiUnsupportedMediaTypeResponse({
    description: 'the document is not sent as Content-Type application/json',
  })
  @ApiInternalServerErrorResponse({
    description:
      'the safety copy could not be made (the error names the file), or another server failure; nothing was restored',
  })
  async restore(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RestoreResultDto> {
    try {
      if (mediaTypeOf(restoreContentType(request)) !== 'application/json' || !isReadable(request.body))
        throw new UnsupportedMediaTypeError(
          'the backup document must be sent as Content-Type application/json',
        );
      const length = Number(request.headers['content-length']);
      const result = await this.restores.restore(request.body, Number.isFinite(length) ? length : null);
      const principal = principalOf(request);
      if (result.token_epoch_notice && principal?.kind === 'user') {
        const token = await this.sessions.renewSession(principal.user.id);
        if (token) setSessionCookie(reply, token);
      }
      return result;
    } catch (error) {
      // The rest of an unread body is not worth reading: close the connection after answering.
      void reply.header('connection', 'close');
      if (error instanceof SafetyCopyError) rememberFailure(request, error.message, error.message);
      throw error;
    }
  }
}
