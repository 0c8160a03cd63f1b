import { Module } from '@nestjs/common';
import { DoctorCommand } from './doctor.command';
import { HealthcheckCommand } from './healthcheck.command';
import { MigrateStorageCommand } from './migrate-storage.command';
import { SeedCommand } from './seed.command';
import { ServeCommand } from './serve.command';
import { VersionCommand } from './version.command';

@Module({
  providers: [
    ServeCommand,
    VersionCommand,
    HealthcheckCommand,
    DoctorCommand,
    SeedCommand,
    MigrateStorageCommand,
  ],
})
export class CliModule {}
