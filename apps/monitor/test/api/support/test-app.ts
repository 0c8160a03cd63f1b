import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp, CreateAppOptions } from '../../../src/create-app';
import { resolveConfig } from '../../../src/core/config/config.resolve';
import type { MonitorConfig } from '../../../src/core/config/monitor-config';
import { createLogger } from '../../../src/core/logging/logger';
import { backendEnv } from '../../support/test-database';
import { expectNoCredentialHashes } from './secrets';

export interface LogRecord {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export interface TestApp {
  app: NestFastifyApplication;
  url: string;
  dataDir: string;
  config: MonitorConfig;
  logs: LogRecord[];
  /** Every response body this app has sent to `request` (for scans for leaked secrets). */
  bodies: string[];
  /** fetch against the app; `path` starts with `/`. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** The real application on a temp data directory, listening on 127.0.0.1 with a free port. */
let appsStarted = 0;
const hasInstanceName = (file: unknown): boolean =>
  typeof file === 'object' && file !== null && 'instance_name' in file;

export async function startTestApp(
  options: CreateAppOptions & {
    env?: Record<string, string>;
    logLevel?: string;
    dataDir?: string;
    /** The parsed contents of a configuration file. */
    file?: unknown;
  } = {},
): Promise<TestApp> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-api-'));
  const config = resolveConfig({
    // Apps of one test process share its pid, so each gets a name of its own (several on one
    // PostgreSQL database are a cluster, where names are unique).
    env: {
      ...backendEnv(['--data-dir', dataDir]),
      ...(hasInstanceName(options.file)
        ? {}
        : { MONITOR_INSTANCE_NAME: `test-app-${process.pid}-${++appsStarted}` }),
      ...options.env,
    },
    file: options.file === undefined ? undefined : { path: 'test-config.yaml', data: options.file },
    flags: { listen: '127.0.0.1:0', dataDir, logLevel: options.logLevel ?? 'info' },
    cwd: process.cwd(),
  });
  const logs: LogRecord[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(JSON.parse(line) as LogRecord);
      done();
    },
  });
  const logger = createLogger(config.log_level, sink);
  const app = await createApp(config, logger, { dashboardDir: null, ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  const bodies: string[] = [];
  return {
    app,
    url,
    dataDir,
    config,
    logs,
    bodies,
    request: async (p, init) => {
      const response = await fetch(`${url}${p}`, init);
      const type = response.headers.get('content-type') ?? '';
      // A backup download is the one response meant to carry stored secrets.
      const attachment = (response.headers.get('content-disposition') ?? '').startsWith('attachment');
      if (!attachment && (type.includes('json') || type.startsWith('text/')))
        bodies.push(await response.clone().text());
      return response;
    },
    close: async () => {
      try {
        expectNoCredentialHashes(bodies);
      } finally {
        await app.close();
      }
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
