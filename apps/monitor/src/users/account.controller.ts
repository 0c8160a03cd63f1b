import { Body, Controller, Get, Header, HttpCode, Post, Put, Req, Res, StreamableFile } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiProduces,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequireAccess } from '../core/http/access.decorator';
import { OkDto } from '../core/http/ok.dto';
import { WrongPassword } from '../auth/passwords';
import { currentUser } from '../core/http/principal';
import { PASSWORD_CHECK, SecretCheckThrottle } from '../auth/secret-check-throttle';
import { setSessionCookie } from '../auth/session-cookie';
import { SessionService } from '../auth/session.service';
import {
  ChangePasswordDto,
  PasswordConfirmationDto,
  RecoveryCodesDto,
  TotpCodeDto,
  TotpStartDto,
} from './dto/users.dto';
import { TotpService } from './totp.service';
import type { User } from './users.repository';
import { UsersService } from './users.service';

/** The header a 429 carries. */
const TOO_MANY = ApiTooManyRequestsResponse({
  description: 'five wrong passwords from this address, or for this account, within a minute',
  headers: {
    'Retry-After': {
      description: 'seconds until the password is checked again',
      schema: { type: 'integer' },
    },
  },
});

/** The calling account's own password and second factor. */
@ApiTags('own account')
@Controller('api')
@RequireAccess('viewer')
@ApiForbiddenResponse({
  description: 'the API key has no account (sign in to use this), or a cross-site write',
})
export class AccountController {
  constructor(
    private readonly users: UsersService,
    private readonly totp: TotpService,
    private readonly sessions: SessionService,
    private readonly throttle: SecretCheckThrottle,
  ) {}

  /** A check of the account's password, throttled like sign-ins (per address and per account). */
  private checked<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    run: (user: User) => Promise<T>,
  ): Promise<T> {
    const user = currentUser<User>(request);
    return this.throttle.attempt(request, reply, {
      kind: PASSWORD_CHECK,
      account: user,
      failure: (error) => (error instanceof WrongPassword ? { reason: 'wrong password' } : null),
      run: () => run(user),
    });
  }

  /** Changes your password: your other sessions end; this browser gets a fresh cookie. */
  @Put('password')
  @ApiOkResponse({ type: OkDto })
  @TOO_MANY
  async changePassword(
    @Req() request: FastifyRequest,
    @Body() body: ChangePasswordDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OkDto> {
    const user = await this.checked(request, reply, (own) =>
      this.users.changeOwnPassword(own, body.current_password, body.new_password),
    );
    setSessionCookie(reply, await this.sessions.issueSession(user));
    return { ok: true };
  }

  /** Starts second-factor enrolment: a new secret, stored unconfirmed. */
  @Post('me/totp/start')
  @HttpCode(200)
  @ApiOkResponse({ type: TotpStartDto })
  @ApiConflictResponse({ description: 'the second factor is already on' })
  start(@Req() request: FastifyRequest): Promise<TotpStartDto> {
    return this.totp.start(currentUser<User>(request));
  }

  /** The secret being enrolled as a QR code. */
  @Get('me/totp/qr')
  @Header('cache-control', 'no-store')
  @ApiProduces('image/png')
  @ApiNotFoundResponse({ description: 'no second factor is being set up' })
  async qr(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    const png = await this.totp.qrPng(currentUser<User>(request));
    void reply.type('image/png');
    return new StreamableFile(png);
  }

  /** Confirms enrolment with a code; answers the eight recovery codes, shown this once. */
  @Post('me/totp/confirm')
  @HttpCode(200)
  @ApiOkResponse({ type: RecoveryCodesDto })
  @ApiConflictResponse({ description: 'the second factor is already on, or its setup was not started' })
  async confirm(@Req() request: FastifyRequest, @Body() body: TotpCodeDto): Promise<RecoveryCodesDto> {
    return { recovery_codes: await this.totp.confirm(currentUser<User>(request), body.code) };
  }

  /** Turns the second factor off (secret and recovery codes cleared). */
  @Post('me/totp/disable')
  @HttpCode(200)
  @ApiOkResponse({ type: OkDto })
  @TOO_MANY
  async disable(
    @Req() request: FastifyRequest,
    @Body() body: PasswordConfirmationDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OkDto> {
    await this.checked(request, reply, (own) => this.totp.disable(own, body.password));
    return { ok: true };
  }

  /** A fresh set of recovery codes; the old set stops working. */
  @Post('me/totp/recovery')
  @HttpCode(200)
  @ApiOkResponse({ type: RecoveryCodesDto })
  @ApiConflictResponse({ description: 'the second factor is off' })
  @TOO_MANY
  async recovery(
    @Req() request: FastifyRequest,
    @Body() body: PasswordConfirmationDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RecoveryCodesDto> {
    return {
      recovery_codes: await this.checked(request, reply, (own) =>
        this.totp.regenerateRecoveryCodes(own, body.password),
      ),
    };
  }
}
