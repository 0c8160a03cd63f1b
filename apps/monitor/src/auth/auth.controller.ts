import {
  Body,
  Controller,
  Get,
  HttpCode,
  HttpException,
  HttpStatus,
  Inject,
  Post,
  Req,
  Res,
  UnauthorizedException,
} from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { SessionInfo } from '@monitor/contracts';
import { LoginThrottle } from '@monitor/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import type { AppLogger } from '../core/logging/logger';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import { SettingsService } from '../settings/settings.service';
import { RequireAccess } from './access.decorator';
import { AuthService, ChallengeExpired, SecondFactorFailed, SignInFailed } from './auth.service';
import { LoginDto, LoginResponseDto, OkDto, SetupDto, TotpLoginDto } from './dto/auth.dto';
import { principalOf } from './principal';
import { clearSessionCookie, setSessionCookie } from './session-cookie';
import { SessionInfoDto } from './dto/session-info.dto';
import { namedHosts, setupHostRefusal } from './setup-host';

/** The header a 429 carries. */
const RETRY_AFTER = {
  'Retry-After': { description: 'seconds until sign-in is accepted again', schema: { type: 'integer' } },
};

@ApiTags('authentication')
@Controller('api')
export class AuthController {
  private readonly throttle = new LoginThrottle();

  constructor(
    private readonly auth: AuthService,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
  ) {}

  /** Why first-run setup may not run from the host this request names, or null. */
  private setupRefusal(request: FastifyRequest): string | null {
    return setupHostRefusal(namedHosts(request.headers), {
      baseUrl: this.config.base_url,
      allowedHosts: this.config.allowed_hosts,
    });
  }

  /** Whether setup is needed, whether the caller is signed in, the account and its UI settings. */
  @Get('session')
  @RequireAccess('public')
  @ApiOkResponse({ type: SessionInfoDto })
  async session(@Req() request: FastifyRequest): Promise<SessionInfo> {
    const info = await this.settings.sessionInfo(principalOf(request));
    return { ...info, setup_host_allowed: this.setupRefusal(request) === null };
  }

  /**
   * Creates the first administrator and signs it in; refused (409) once any account exists, and
   * (403) while none exists when the request's host is not an IP address, localhost, the host of
   * base_url or one of allowed_hosts.
   */
  @Post('setup')
  @RequireAccess('public')
  @HttpCode(200)
  @ApiOkResponse({ type: OkDto })
  @ApiForbiddenResponse({ description: 'the host the request names may not run first-run setup' })
  @ApiConflictResponse({ description: 'setup is done: an account already exists' })
  async setup(
    @Body() body: SetupDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OkDto> {
    setSessionCookie(reply, await this.auth.setup(body, this.setupRefusal(request)));
    return { ok: true };
  }

  /** Signs in, or answers `totp_required` with a two-minute challenge. Five failures a minute per address. */
  @Post('login')
  @RequireAccess('public')
  @HttpCode(200)
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiUnauthorizedResponse({ description: 'invalid username or password' })
  @ApiTooManyRequestsResponse({
    description: 'five failed sign-ins from this address within a minute',
    headers: RETRY_AFTER,
  })
  async login(
    @Body() body: LoginDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LoginResponseDto> {
    return this.throttled(request, reply, body.username, async () => {
      const outcome = await this.auth.login(body.username, body.password);
      if (outcome.kind === 'challenge') return outcome.response;
      setSessionCookie(reply, outcome.token);
      return { ok: true };
    });
  }

  /** Second step: the challenge and a TOTP code or a recovery code. */
  @Post('login/totp')
  @RequireAccess('public')
  @HttpCode(200)
  @ApiOkResponse({ type: OkDto })
  @ApiUnauthorizedResponse({ description: 'the challenge expired or the code is wrong' })
  @ApiTooManyRequestsResponse({
    description: 'five failed sign-ins from this address within a minute',
    headers: RETRY_AFTER,
  })
  async loginTotp(
    @Body() body: TotpLoginDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OkDto> {
    return this.throttled(request, reply, undefined, async () => {
      setSessionCookie(reply, await this.auth.loginWithCode(body.challenge, body.code));
      return { ok: true as const };
    });
  }

  /** Clears the session cookie. */
  @Post('logout')
  @RequireAccess('public')
  @HttpCode(200)
  @ApiOkResponse({ type: OkDto })
  logout(@Res({ passthrough: true }) reply: FastifyReply): OkDto {
    clearSessionCookie(reply);
    return { ok: true };
  }

  /** `username`: the one tried, when the request names it (the TOTP step names it on failure). */
  private async throttled<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    username: string | undefined,
    attempt: () => Promise<T>,
  ): Promise<T> {
    const address = request.ip;
    const wait = this.throttle.begin(address, this.clock.now());
    if (wait > 0) {
      this.logFailure(address, username, 'rate limited');
      void reply.header('retry-after', String(wait));
      throw new HttpException(
        `too many failed sign-in attempts: try again in ${wait} seconds`,
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
    let failed = false;
    try {
      return await attempt();
    } catch (error) {
      if (
        error instanceof SignInFailed ||
        error instanceof SecondFactorFailed ||
        error instanceof ChallengeExpired
      ) {
        failed = true;
        this.logFailure(
          address,
          error instanceof ChallengeExpired ? username : error.username,
          error instanceof SignInFailed
            ? error.reason
            : error instanceof SecondFactorFailed
              ? 'invalid code'
              : 'expired challenge',
        );
        throw new UnauthorizedException(error.message);
      }
      throw error;
    } finally {
      this.throttle.settle(address, failed, this.clock.now());
      this.throttle.sweep(this.clock.now());
    }
  }

  /** One warn line per failed sign-in, for fail2ban-style tools (README, "Logs"); never the password. */
  private logFailure(ip: string, username: string | undefined, reason: string): void {
    this.logger.warn({ ip, username: printableUsername(username), reason }, 'sign-in failed');
  }
}

/** The username as tried, safe on one log line: control characters become `?`, at most 128 characters. */
export function printableUsername(username: string | undefined): string {
  if (username === undefined) return '-';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  return username.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 128);
}
