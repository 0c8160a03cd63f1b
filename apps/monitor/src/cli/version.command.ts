import { Command, CommandRunner, Option } from 'nest-commander';
import { buildInfo } from '../core/build-info';

@Command({ name: 'version', description: 'print version, build, commit, build date and channel' })
export class VersionCommand extends CommandRunner {
  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const info = buildInfo();
    const text = options.json
      ? JSON.stringify(info)
      : Object.entries(info)
          .map(([key, value]) => `${key}: ${value || '-'}`)
          .join('\n');
    process.stdout.write(`${text}\n`);
  }

  @Option({ flags: '--json', description: 'print one JSON object' })
  parseJson(): boolean {
    return true;
  }
}
