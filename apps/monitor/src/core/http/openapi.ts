import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { buildInfo } from '../build-info';

export const OPENAPI_JSON_PATH = 'api/openapi.json';
export const OPENAPI_UI_PATH = 'api/docs';

export function buildOpenApiDocument(app: NestFastifyApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Monitor API')
    .setDescription(
      'The JSON API of the self-hosted uptime monitor. The dashboard is a client of this same API. ' +
        'Errors are always {"error": "..."} with a 4xx or 5xx status.',
    )
    .setVersion(buildInfo().version)
    .addCookieAuth('monitor_session')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'api_key')
    .addBearerAuth()
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** Served at /api/openapi.json and browsable at /api/docs; built on first request, not at start. */
export function registerOpenApi(app: NestFastifyApplication): void {
  let document: OpenAPIObject | undefined;
  SwaggerModule.setup(OPENAPI_UI_PATH, app, () => (document ??= buildOpenApiDocument(app)), {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'Monitor API',
  });
}
