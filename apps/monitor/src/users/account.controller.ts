import { Body, Controller, Get, Header, HttpCode, Post, Put, Req, Res, StreamableFile } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequireAccess } from '../auth/access.decorator';
import { OkDto } from '../auth/dto/auth.dto';
import { currentUser } from '../auth/principal';
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
import { UsersService } from './users.service';

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
  ) {}

  /** Changes your password: your other sessions end; this browser gets a fresh cookie. */
  @Put('password')
  @ApiOkResponse({ type: OkDto })
  async changePassword(
    @Req() request: FastifyRequest,
    @Body() body: ChangePasswordDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OkDto> {
    const user = await this.users.changeOwnPassword(
      currentUser(request),
      body.current_password,
      body.new_password,
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
    return this.totp.start(currentUser(request));
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
    const png = await this.totp.qrPng(currentUser(request));
    void reply.type('image/png');
    return new StreamableFile(png);
  }

  /** Confirms enrolment with a code; answers the eight recovery codes, shown this once. */
  @Post('me/totp/confirm')
  @HttpCode(200)
  @ApiOkResponse({ type: RecoveryCodesDto })
  @ApiConflictResponse({ description: 'the second factor is already on, or its setup was not started' })
  async confirm(@Req() request: FastifyRequest, @Body() body: TotpCodeDto): Promise<RecoveryCodesDto> {
    return { recovery_codes: await this.totp.confirm(currentUser(request), body.code) };
  }

  /** Turns the second factor off (secret and recovery codes cleared). */
  @Post('me/totp/disable')
  @HttpCode(200)
  @ApiOkResponse({ type: OkDto })
  async disable(@Req() request: FastifyRequest, @Body() body: PasswordConfirmationDto): Promise<OkDto> {
    await this.totp.disable(currentUser(request), body.password);
    return { ok: true };
  }

  /** A fresh set of recovery codes; the old set stops working. */
  @Post('me/totp/recovery')
  @HttpCode(200)
  @ApiOkResponse({ type: RecoveryCodesDto })
  @ApiConflictResponse({ description: 'the second factor is off' })
  async recovery(
    @Req() request: FastifyRequest,
    @Body() body: PasswordConfirmationDto,
  ): Promise<RecoveryCodesDto> {
    return { recovery_codes: await this.totp.regenerateRecoveryCodes(currentUser(request), body.password) };
  }
}
