import * as path from 'node:path';
import { parseDurationSeconds } from '@monitor/domain';
import { Command, Option } from 'nest-commander';
import { loadConfig } from '../core/config/config.loader';
import { CONFIG_DEFAULTS } from '../core/config/monitor-config';
import { runInstallationChecks, type DoctorReport } from '../doctor/installation-checks';
import { ConfigOptions, type ConfigFlagOptions } from './config-options';

@Command({
  name: 'doctor',
  description: 'inspect the installation read-only; exit 0 healthy, 1 problems found',
})
export class DoctorCommand extends ConfigOptions {
  async run(_params: string[], options: ConfigFlagOptions & { json?: boolean } = {}): Promise<void> {
    let dataDir: string;
    let databaseUrl: string | null = null;
    let configError: string | null = null;
    let cluster = {
      deadAfterMs: (parseDurationSeconds(CONFIG_DEFAULTS.cluster.dead_after) ?? 15) * 1000,
      self: '',
    };
    try {
      const config = loadConfig(options);
      dataDir = config.data_dir;
      databaseUrl = config.database_url;
      cluster = { deadAfterMs: config.cluster.dead_after_seconds * 1000, self: config.instance_name };
    } catch (error) {
      configError = (error as Error).message;
      // Still inspect the data directory the operator most likely meant.
      dataDir = path.resolve(options.dataDir ?? process.env.MONITOR_DATA_DIR ?? CONFIG_DEFAULTS.data_dir);
    }
    const report = await runInstallationChecks({ dataDir, databaseUrl, configError, cluster });
    process.stdout.write(options.json ? `${JSON.stringify(report)}\n` : formatReport(report));
    process.exitCode = report.ok ? 0 : 1;
  }

  @Option({ flags: '--json', description: 'print the report as JSON' })
  parseJson(): boolean {
    return true;
  }
}

function formatReport(report: DoctorReport): string {
  const lines = report.checks.map(
    (check) => `${check.ok ? 'ok     ' : 'PROBLEM'} ${check.name}: ${check.detail}`,
  );
  const problems = report.checks.filter((check) => !check.ok).length;
  lines.push(problems === 0 ? 'healthy' : `${problems} problem${problems === 1 ? '' : 's'} found`);
  return `${lines.join('\n')}\n`;
}
