import { Module } from '@nestjs/common';
import { InstallationSecretsModule } from '../settings/installation-secrets.module';
import { SessionService } from './session.service';

/** Session cookies and second-factor challenges, for the sign-in and for the account pages. */
@Module({ imports: [InstallationSecretsModule], providers: [SessionService], exports: [SessionService] })
export class SessionsModule {}
