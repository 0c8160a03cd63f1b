import './core/database/sqlite-uri';
import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { CliModule } from './cli/cli.module';

/** The one executable: `monitor [serve|doctor|healthcheck|version] [flags]`; serve is the default. */
async function main(): Promise<void> {
  await CommandFactory.run(CliModule, {
    logger: false,
    errorHandler: (error) => {
      // commander reports its own usage errors (unknown command or flag); help and version exit 0.
      const code = (error as { exitCode?: number }).exitCode;
      process.exit(typeof code === 'number' ? code : 1);
    },
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`monitor: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
