import {
  Body,
  Controller,
  Get,
  HttpCode,
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
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { SettingsService } from '../settings/settings.service';
import { RequireAccess } from '../core/http/access.decorator';
import { AuthService, ChallengeExpired, SecondFactorFailed, SignInFailed } from './auth.service';
import { LoginDto, LoginResponseDto, SetupDto, TotpLoginDto } from './dto/auth.dto';
import { OkDto } from '../core/http/ok.dto';
import { principalOf } from '../core/http/principal';
import type { User } from '../users/users.repository';
import {
  SecretCheckThrottle,
  SIGN_IN,
  type CountedFailure,
  type ThrottledCheck,
} from './secret-check-throttle';
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
  constructor(
    private readonly auth: AuthService,
    private readonly settings: SettingsService,
    private readonly throttle: SecretCheckThrottle,
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
    const info = await this.settings.sessionInfo(principalOf<User>(request));
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
    // Per address only: counting per account would let anyone lock an account out by its name.
    return this.signIn(request, reply, {
      kind: SIGN_IN,
      username: body.username,
      failure: signInFailure,
      run: async () => {
        const outcome = await this.auth.login(body.username, body.password);
        if (outcome.kind === 'challenge') return outcome.response;
        setSessionCookie(reply, outcome.token);
        return { ok: true };
      },
    });
  }

  /**
   * Second step: the challenge and a TOTP code or a recovery code. A challenge takes one try, right
   * or wrong; failures count per address and per account.
   */
  @Post('login/totp')
  @RequireAccess('public')
  @HttpCode(200)
  @ApiOkResponse({ type: OkDto })
  @ApiUnauthorizedResponse({ description: 'the challenge expired or was used, or the code is wrong' })
  @ApiTooManyRequestsResponse({
    description: 'five failed sign-ins from this address, or for this account, within a minute',
    headers: RETRY_AFTER,
  })
  async loginTotp(
    @Body() body: TotpLoginDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OkDto> {
    const account = await this.auth.accountOfChallenge(body.challenge);
    return this.signIn(request, reply, {
      kind: SIGN_IN,
      account: account ?? undefined,
      failure: signInFailure,
      run: async () => {
        setSessionCookie(reply, await this.auth.loginWithCode(body.challenge, body.code));
        return { ok: true as const };
      },
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

  /** A throttled sign-in step; every failed one answers 401 with its one message. */
  private async signIn<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    check: ThrottledCheck<T>,
  ): Promise<T> {
    try {
      return await this.throttle.attempt(request, reply, check);
    } catch (error) {
      if (signInFailure(error)) throw new UnauthorizedException((error as Error).message);
      throw error;
    }
  }
}

/** Failed sign-ins count for the throttle; each answers 401 with one message whatever the reason. */
function signInFailure(error: unknown): CountedFailure | null {
  if (error instanceof SignInFailed) return { reason: error.reason, username: error.username };
  if (error instanceof SecondFactorFailed) return { reason: 'invalid code', username: error.username };
  if (error instanceof ChallengeExpired) return { reason: 'expired challenge' };
  return null;
}
