import { Command, Option } from 'nest-commander';
import { loadConfig } from '../core/config/config.loader';
import type { ListenAddress } from '../core/config/monitor-config';
import { ConfigOptions, type ConfigFlagOptions } from './config-options';

export const HEALTHCHECK_TIMEOUT_MS = 5000;

/** The local address that reaches a server listening on `listen` (wildcards become loopback). */
export function localHealthUrl({ host, port }: ListenAddress): string {
  const reachable = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}/healthz`;
}

@Command({ name: 'healthcheck', description: 'GET /healthz; exit 0 when healthy, 1 otherwise' })
export class HealthcheckCommand extends ConfigOptions {
  async run(_params: string[], options: ConfigFlagOptions & { url?: string } = {}): Promise<void> {
    let url: string;
    try {
      url = options.url ?? localHealthUrl(loadConfig(options).listen);
    } catch (error) {
      return this.fail(`unhealthy: ${(error as Error).message}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(HEALTHCHECK_TIMEOUT_MS) });
      const body = (await response.json().catch(() => ({}))) as { status?: string; version?: string };
      if (response.ok && body.status === 'ok') {
        process.stdout.write(`healthy: ${url} (version ${body.version ?? 'unknown'})\n`);
        return;
      }
      return this.fail(`unhealthy: ${url} answered ${response.status}`);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      return this.fail(
        `unhealthy: ${url} unreachable (${cause === 'TimeoutError' ? 'no answer within 5 s' : cause})`,
      );
    }
  }

  private fail(message: string): void {
    process.stdout.write(`${message}\n`);
    process.exitCode = 1;
  }

  @Option({
    flags: '--url <url>',
    description: 'health URL (default: from --listen, http://127.0.0.1:8080/healthz)',
  })
  parseUrl(value: string): string {
    return value;
  }
}
