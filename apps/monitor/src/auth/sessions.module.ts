import { Module } from '@nestjs/common';
import { InstallationSecretsModule } from '../settings/installation-secrets.module';
import { UsersStorageModule } from '../users/users-storage.module';
import { SecretCheckThrottle } from './secret-check-throttle';
import { SessionService } from './session.service';
import { SpentChallengesRepository } from './spent-challenges.repository';

/**
 * Session cookies, second-factor challenges and the throttle of password and code checks, for the
 * sign-in and for the account pages.
 */
@Module({
  imports: [InstallationSecretsModule, UsersStorageModule],
  providers: [SessionService, SpentChallengesRepository, SecretCheckThrottle],
  exports: [SessionService, SecretCheckThrottle],
})
export class SessionsModule {}
