import type { OutgoingHttpHeaders } from 'node:http';
import {
  Controller,
  Get,
  Inject,
  NotAcceptableException,
  Req,
  Res,
  ServiceUnavailableException,
} from '@nestjs/common';
import {
  ApiNotAcceptableResponse,
  ApiOkResponse,
  ApiProduces,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequireAccess } from '../core/http/access.decorator';
import { currentPrincipal } from '../core/http/principal';
import { presentedKey } from '../auth/api-key-header';
import { SESSION_COOKIE } from '../auth/session-cookie';
import { SessionService } from '../auth/session.service';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { InstallationSecretsService } from '../settings/installation-secrets.service';
import { type CredentialCheck, LiveHub } from './live-hub.service';

/** What EventSource sends; a client that does not ask for a stream is not given one. */
const acceptsEventStream = (accept: string | undefined): boolean =>
  (accept ?? '').toLowerCase().includes('text/event-stream');

@ApiTags('live')
@Controller('api')
export class LiveController {
  constructor(
    private readonly hub: LiveHub,
    private readonly sessions: SessionService,
    private readonly secrets: InstallationSecretsService,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /**
   * Server-Sent Events: `result`, `status`, `incident`, `sensor`, `channel` and `settings` frames
   * (`event: <kind>` and a JSON `data:` line) and a `: keep-alive` comment every 25 seconds.
   * The request must accept `text/event-stream` (EventSource does); anything else is 406.
   */
  @Get('events')
  @RequireAccess('viewer')
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'an endless text/event-stream' })
  @ApiNotAcceptableResponse({ description: 'the request does not accept text/event-stream' })
  @ApiServiceUnavailableResponse({ description: 'the server is shutting down' })
  stream(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    if (!acceptsEventStream(request.headers.accept)) {
      throw new NotAcceptableException(
        'this endpoint streams Server-Sent Events: send the header Accept: text/event-stream',
      );
    }
    if (this.hub.isClosing) throw new ServiceUnavailableException('the server is shutting down');

    reply.hijack();
    const raw = reply.raw;
    raw.on('error', () => undefined);
    const inherited: OutgoingHttpHeaders = {};
    // The security headers every response carries were set on the reply by an onRequest hook.
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) inherited[name] = value;
    raw.writeHead(200, {
      ...inherited,
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    raw.flushHeaders();
    request.raw.socket?.setNoDelay(true);

    const subscriber = this.hub.subscribe(raw, this.credentialCheck(request));
    if (!subscriber) {
      raw.end();
      return;
    }
    const release = () => {
      const stats = subscriber.stats();
      this.hub.unsubscribe(subscriber);
      // A hijacked reply skips the request-log hook: its one line is written here, at the end.
      const fields: Record<string, unknown> = {
        method: request.method,
        path: request.url.split('?')[0],
        status: 200,
        duration_ms: Math.round(reply.elapsedTime * 10) / 10,
        events_sent: stats.sent,
        events_dropped: stats.dropped,
      };
      if (this.logger.isLevelEnabled('debug')) {
        fields.remote = request.ip;
        fields.user_agent = request.headers['user-agent'];
        fields.request_id = request.id;
      }
      this.logger.info(fields, 'http request');
      if (stats.dropped > 0) {
        this.logger.warn(
          { subscriber: subscriber.id, events_dropped: stats.dropped, events_sent: stats.sent },
          'live subscriber closed after dropping events',
        );
      }
    };
    // The client may have gone while the guard was still reading its account.
    if (raw.destroyed || request.raw.socket?.destroyed) release();
    else raw.once('close', release);
  }

  /** Re-reads the credentials the stream was opened with (the account row, or the API key). */
  private credentialCheck(request: FastifyRequest): CredentialCheck {
    const principal = currentPrincipal(request);
    if (principal.kind === 'api_key') {
      const key = presentedKey(request.headers).key ?? '';
      return () => this.secrets.isApiKey(key);
    }
    const cookie = request.cookies?.[SESSION_COOKIE];
    return async () => (await this.sessions.userOfSession(cookie)) !== null;
  }
}
