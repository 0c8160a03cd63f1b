import { Command, Option } from 'nest-commander';
import { ConflictError } from '@monitor/domain';
import { createApp } from '../create-app';
import { createLogger } from '../core/logging/logger';
import { dropIdentity } from '../core/process/identity';
import { StartupError } from '../core/process/startup-error';
import { ExamplesService } from '../examples/examples.service';
import { ConfigOptions, type ConfigFlagOptions } from './config-options';
import { exitWithError, loadConfigOrExit } from './fatal';

@Command({
  name: 'seed',
  description: 'load the sample data (--demo) into the data directory, as POST /api/examples does',
})
export class SeedCommand extends ConfigOptions {
  async run(_params: string[], flags: ConfigFlagOptions & { demo?: boolean } = {}): Promise<void> {
    if (!flags.demo) exitWithError('seed needs --demo (the only data set there is)');
    const config = loadConfigOrExit(flags);
    const logger = createLogger(config.log_level);
    try {
      dropIdentity(config, logger);
      // The whole application without HTTP and without probing: the same service the API uses.
      const app = await createApp(config, logger, { startScheduler: false, dashboardDir: null });
      try {
        const counts = await app.get(ExamplesService).load();
        process.stdout.write(
          `sample data: ${counts.sensors} sensors, ${counts.sites} sites, ${counts.results} results, ${counts.incidents} incidents\n`,
        );
      } finally {
        await app.close();
      }
    } catch (error) {
      if (error instanceof StartupError || error instanceof ConflictError)
        exitWithError(error.message, logger);
      throw error;
    }
  }

  @Option({ flags: '--demo', description: 'the sample installation with a week of invented history' })
  parseDemo(): boolean {
    return true;
  }
}
