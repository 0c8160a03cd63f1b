import * as fs from 'node:fs';
import { parse, YAMLParseError } from 'yaml';
import { ConfigFlags, configFilePath, resolveConfig } from './config.resolve';
import { ConfigError, MonitorConfig } from './monitor-config';

/** Reads the YAML file (when one is named) and resolves the whole configuration. Throws ConfigError. */
export function loadConfig(
  flags: ConfigFlags,
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): MonitorConfig {
  const filePath = configFilePath(flags, env, cwd);
  let file: { path: string; data: unknown } | undefined;
  if (filePath) {
    let text: string;
    try {
      text = fs.readFileSync(filePath, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new ConfigError(`invalid configuration: config: cannot read ${filePath} (${code})`);
    }
    try {
      file = { path: filePath, data: parse(text, { uniqueKeys: true }) };
    } catch (error) {
      const where = error instanceof YAMLParseError && error.linePos ? ` line ${error.linePos[0].line}` : '';
      const reason = error instanceof Error ? error.message.split('\n')[0] : 'unreadable YAML';
      throw new ConfigError(`invalid configuration: config: ${filePath}${where}: ${reason}`);
    }
  }
  return resolveConfig({ file, env, flags, cwd });
}
