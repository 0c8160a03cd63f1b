import { Module } from '@nestjs/common';
import { InstallationSecretsService } from './installation-secrets.service';

/**
 * The installation's secrets (session key, API key) on their own: sessions need them, and the
 * settings' own module depends on the accounts, which depend on sessions.
 */
@Module({ providers: [InstallationSecretsService], exports: [InstallationSecretsService] })
export class InstallationSecretsModule {}
