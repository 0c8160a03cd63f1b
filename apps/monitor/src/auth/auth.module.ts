import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { InstallationSecretsService } from '../settings/installation-secrets.service';
import { SettingsService } from '../settings/settings.service';
import { SettingsStore } from '../settings/settings.store';
import { TotpService } from '../users/totp.service';
import { UsersService } from '../users/users.service';
import { AccessGuard } from './access.guard';
import { ApiKeyController } from './api-key.controller';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { SessionService } from './session.service';
import { ApiKeyStrategy, SessionStrategy } from './strategies';

/**
 * Identity: accounts, sessions, the API key and the global access guard. The account and settings
 * services live here too because authentication cannot work without them.
 */
@Module({
  imports: [PassportModule],
  controllers: [AuthController, ApiKeyController],
  providers: [
    { provide: APP_GUARD, useClass: AccessGuard },
    ApiKeyStrategy,
    SessionStrategy,
    SessionService,
    AuthService,
    UsersService,
    TotpService,
    InstallationSecretsService,
    SettingsStore,
    SettingsService,
  ],
  exports: [
    SessionService,
    UsersService,
    TotpService,
    InstallationSecretsService,
    SettingsStore,
    SettingsService,
  ],
})
export class AuthModule {}
