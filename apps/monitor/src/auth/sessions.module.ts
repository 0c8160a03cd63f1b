import { Module } from '@nestjs/common';
import { InstallationSecretsModule } from '../settings/installation-secrets.module';
import { UsersStorageModule } from '../users/users-storage.module';
import { SessionService } from './session.service';

/** Session cookies and second-factor challenges, for the sign-in and for the account pages. */
@Module({
  imports: [InstallationSecretsModule, UsersStorageModule],
  providers: [SessionService],
  exports: [SessionService],
})
export class SessionsModule {}
