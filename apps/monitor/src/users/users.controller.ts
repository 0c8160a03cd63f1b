import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Put,
  Req,
  Res,
} from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ROLES } from '@monitor/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequireAccess } from '../core/http/access.decorator';
import { OkDto } from '../core/http/ok.dto';
import { currentPrincipal } from '../core/http/principal';
import { setSessionCookie } from '../auth/session-cookie';
import { SessionService } from '../auth/session.service';
import { CreateUserDto, ResetPasswordDto, UpdateUserDto, UserAccountDto, UserListDto } from './dto/users.dto';
import { UsersService } from './users.service';

const actorId = (request: FastifyRequest): number | null => {
  const principal = currentPrincipal(request);
  return principal.kind === 'user' ? principal.user.id : null;
};

@ApiTags('accounts')
@Controller('api/users')
@RequireAccess('admin')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionService,
  ) {}

  /** Every account with role, second-factor state, last sign-in and recovery codes left; and the roles. */
  @Get()
  @ApiOkResponse({ type: UserListDto })
  async list(): Promise<UserListDto> {
    return { users: await this.users.list(), roles: [...ROLES] };
  }

  /** Creates an account with a role; usernames are unique. */
  @Post()
  @ApiCreatedResponse({ type: UserAccountDto })
  @ApiConflictResponse({ description: 'an account with that username exists' })
  async create(@Body() body: CreateUserDto): Promise<UserAccountDto> {
    return this.users.account(await this.users.create(body));
  }

  /** Changes role or disabled; the last active administrator and your own account are protected (409). */
  @Put(':id')
  @ApiOkResponse({ type: UserAccountDto })
  @ApiConflictResponse({
    description: 'the last active administrator, or your own account, cannot be disabled or demoted',
  })
  update(
    @Req() request: FastifyRequest,
    @Param('id', ParseIntPipe) id: number,
    @Body() body: UpdateUserDto,
  ): Promise<UserAccountDto> {
    return this.users.update(actorId(request), id, body);
  }

  /** Deletes the account and its recovery codes. */
  @Delete(':id')
  @ApiOkResponse({ type: OkDto })
  @ApiConflictResponse({
    description: 'the last active administrator, or your own account, cannot be deleted',
  })
  async remove(@Req() request: FastifyRequest, @Param('id', ParseIntPipe) id: number): Promise<OkDto> {
    await this.users.remove(actorId(request), id);
    return { ok: true };
  }

  /** Sets a new password without the old one and signs that person out everywhere. */
  @Post(':id/password')
  @HttpCode(200)
  @ApiOkResponse({ type: OkDto })
  async resetPassword(
    @Req() request: FastifyRequest,
    @Param('id', ParseIntPipe) id: number,
    @Body() body: ResetPasswordDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OkDto> {
    const user = await this.users.setPassword(id, body.new_password);
    // Resetting your own password keeps this browser signed in.
    if (actorId(request) === id) setSessionCookie(reply, await this.sessions.issueSession(user));
    return { ok: true };
  }
}
