import type { ModuleMetadata } from '@nestjs/common';
import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { registerRestoreBody, RESTORE_PATH } from './backup/restore-body';
import { Clock } from './core/clock/clock';
import type { MonitorConfig } from './core/config/monitor-config';
import { ApiExceptionFilter } from './core/http/api-exception.filter';
import { registerCompression } from './core/http/compression';
import { dashboardDirectory, registerDashboard } from './core/http/dashboard';
import {
  clientErrorHandler,
  frameworkErrorHandler,
  MAX_PARAM_LENGTH,
  registerShutdownAnswer,
} from './core/http/framework-errors';
import { registerJsonBody } from './core/http/json-body';
import { registerLingeringClose } from './core/http/lingering-close';
import { registerOpenApi } from './core/http/openapi';
import { registerRequestIdHeader, requestIdOf } from './core/http/request-id';
import { registerRequestLog } from './core/http/request-log';
import {
  contentSecurityPolicy,
  crossOriginImageSources,
  registerSecurityHeaders,
} from './core/http/security-headers';
import {
  HTTP_TIME_LIMITS,
  type HttpTimeLimits,
  registerRequestTimeLimit,
  serverTimeOptions,
} from './core/http/time-limits';
import { createValidationPipe } from './core/http/validation';
import type { AppLogger } from './core/logging/logger';
import { NestLoggerAdapter } from './core/logging/nest-logger.adapter';
import { MapSettingsService } from './sites/map-settings.service';

/** Default request body cap; endpoints that take more (restore) raise it for themselves. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface CreateAppOptions {
  clock?: Clock;
  dashboardDir?: string | null;
  /** Threshold of the `slow request` warning. */
  slowRequestMs?: number;
  /** False: runtime state is rebuilt but no probe runs until the scheduler is started by hand. */
  startScheduler?: boolean;
  /** Extra modules mounted beside the application's own (the API tests' probe routes). */
  imports?: ModuleMetadata['imports'];
  /** Client time limits; tests lower them so they need not wait 30 s. */
  timeLimits?: Partial<HttpTimeLimits>;
}

/** Builds the whole HTTP application (not yet listening). Used by `serve` and by the API tests. */
export async function createApp(
  config: MonitorConfig,
  logger: AppLogger,
  options: CreateAppOptions = {},
): Promise<NestFastifyApplication> {
  const limits = { ...HTTP_TIME_LIMITS, ...options.timeLimits };
  const adapter = new FastifyAdapter({
    trustProxy: config.trust_proxy,
    bodyLimit: BODY_LIMIT_BYTES,
    logger: false,
    return503OnClosing: false,
    ...serverTimeOptions(limits),
    genReqId: requestIdOf,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler(logger, config.trust_proxy),
    clientErrorHandler: clientErrorHandler(logger, limits.headersMs),
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, logger, options),
    adapter,
    {
      logger: new NestLoggerAdapter(logger),
      abortOnError: false,
      bufferLogs: false,
      // Our own JSON parser (json-body.ts) bounds depth and refuses ill-formed text.
      bodyParser: false,
    },
  );
  const fastify = app.getHttpAdapter().getInstance();
  registerRequestIdHeader(fastify);
  registerShutdownAnswer(fastify);
  registerRequestLog(fastify, logger, options.slowRequestMs);
  registerJsonBody(fastify);
  registerLingeringClose(fastify);
  registerRequestTimeLimit(fastify, (request) =>
    request.method === 'POST' && request.routeOptions.url === RESTORE_PATH
      ? limits.restoreMs
      : limits.requestMs,
  );
  // POST /api/restore reads its own body as a stream (up to 64 MiB); before app.init() adds the routes.
  registerRestoreBody(fastify);
  // The map tile origins live in memory (read at init, replaced on every save); a tile origin
  // equal to the one the request arrived at adds nothing.
  const map = app.get(MapSettingsService);
  registerSecurityHeaders(fastify, (request) =>
    contentSecurityPolicy(crossOriginImageSources(map.tileOrigins(), request)),
  );
  app.useGlobalFilters(new ApiExceptionFilter());
  app.useGlobalPipes(createValidationPipe());
  await app.register(fastifyCookie);
  await registerCompression(app);
  registerOpenApi(app);
  await registerDashboard(
    app,
    options.dashboardDir === undefined ? dashboardDirectory() : options.dashboardDir,
  );
  try {
    await app.init();
  } catch (error) {
    // What did start is stopped again (the cluster session, the pool): a refused start leaks nothing.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}
