import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { InstallationSecretsModule } from '../settings/installation-secrets.module';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { AccessGuard } from './access.guard';
import { ApiKeyController } from './api-key.controller';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { SessionsModule } from './sessions.module';
import { ApiKeyStrategy, SessionStrategy } from './strategies';

/** Identity: sign-in, the API key and the global access guard. */
@Module({
  imports: [PassportModule, SessionsModule, UsersModule, SettingsModule, InstallationSecretsModule],
  controllers: [AuthController, ApiKeyController],
  providers: [{ provide: APP_GUARD, useClass: AccessGuard }, ApiKeyStrategy, SessionStrategy, AuthService],
})
export class AuthModule {}
