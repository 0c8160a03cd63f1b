import { Module } from '@nestjs/common';
import { InstallationSecretsRepository } from './installation-secrets.repository';
import { InstallationSecretsService } from './installation-secrets.service';

/**
 * The installation's secrets (session key, API key) on their own: sessions need them, and the
 * settings' own module depends on the accounts, which depend on sessions.
 */
@Module({
  providers: [InstallationSecretsRepository, InstallationSecretsService],
  exports: [InstallationSecretsRepository, InstallationSecretsService],
})
export class InstallationSecretsModule {}
