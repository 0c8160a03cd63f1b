import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BuildChannel, VersionInfo } from '@monitor/contracts';

/** Written next to main.js by scripts/stamp-build.mjs at build time. */
export const BUILD_INFO_FILE = 'build-info.json';

const CHANNELS: readonly BuildChannel[] = ['release', 'dev', 'local'];

let cached: VersionInfo | undefined;

/** The stamped build identity; a source checkout that was never built reports channel `local`. */
export function buildInfo(): VersionInfo {
  cached ??= readBuildInfo();
  return cached;
}

function readBuildInfo(): VersionInfo {
  const stamped = readJson(path.join(__dirname, BUILD_INFO_FILE));
  if (stamped && typeof stamped.version === 'string') {
    return {
      version: String(stamped.version),
      build: String(stamped.build ?? ''),
      commit: String(stamped.commit ?? ''),
      build_date: String(stamped.build_date ?? ''),
      channel: CHANNELS.includes(stamped.channel as BuildChannel)
        ? (stamped.channel as BuildChannel)
        : 'local',
    };
  }
  const pkg = readJson(path.resolve(__dirname, '../../../../package.json')) ?? readJson('package.json');
  return {
    version: typeof pkg?.version === 'string' ? pkg.version : '0.0.0',
    build: 'source',
    commit: 'unknown',
    build_date: '',
    channel: 'local',
  };
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}
