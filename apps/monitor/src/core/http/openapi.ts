import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  DocumentBuilder,
  OpenAPIObject,
  SwaggerModule,
  type OperationObject,
  type ResponseObject,
  type SchemaObject,
  type SecurityRequirementObject,
} from '@nestjs/swagger';
import { buildInfo } from '../build-info';

export const OPENAPI_JSON_PATH = 'api/openapi.json';
export const OPENAPI_UI_PATH = 'api/docs';

/** Set on every operation by RequireAccess (auth/access.decorator.ts): `public` or the least role. */
const ACCESS_EXTENSION = 'x-access';

const ERROR_SCHEMA_NAME = 'ErrorResponse';
const ERROR_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'Every error answer: one human-readable sentence, shown verbatim in the dashboard.',
  required: ['error'],
  properties: {
    error: { type: 'string', description: 'What went wrong.', example: 'name must not be empty' },
  },
};

/** The ways in; an authenticated operation accepts any one of them. */
const SECURITY_SCHEMES = {
  api_key: 'the API key in the X-API-Key header (acts as an administrator without an account)',
  bearer: 'the API key as Authorization: Bearer <key>',
  session_cookie: 'the monitor_session cookie set by /api/setup, /api/login or /api/login/totp',
} as const;
const AUTHENTICATED: SecurityRequirementObject[] = Object.keys(SECURITY_SCHEMES).map((name) => ({
  [name]: [],
}));

/** Writes that store nothing, so a full or failing disk cannot refuse them (503/507). */
const STORES_NOTHING = new Set([
  'AuthController_logout',
  'SensorsController_validate',
  'ChannelsController_testDraft',
  'ChannelsController_test',
  'DoctorController_run',
]);

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

export function buildOpenApiDocument(app: NestFastifyApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Monitor API')
    .setDescription(
      'The JSON API of the self-hosted uptime monitor. The dashboard is a client of this same API. ' +
        'Errors are always {"error": "..."} with a 4xx or 5xx status.',
    )
    .setVersion(buildInfo().version)
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addServer('/', 'this installation (the document is served by the API it describes)')
    .addCookieAuth(
      'monitor_session',
      { type: 'apiKey', description: SECURITY_SCHEMES.session_cookie },
      'session_cookie',
    )
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'X-API-Key', description: SECURITY_SCHEMES.api_key },
      'api_key',
    )
    // Not addBearerAuth(): it would call the API key a JWT.
    .addSecurity('bearer', { type: 'http', scheme: 'bearer', description: SECURITY_SCHEMES.bearer })
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    // Stable ids a generated client can name its methods after: Controller_method.
    operationIdFactory: (controller, method) => `${controller}_${method}`,
  });
  return withCommonAnswers(document);
}

/**
 * Adds what every operation shares and the controllers need not repeat: its security requirement
 * (from the access RequireAccess declared), the error answers its shape implies (a body or parameters
 * can be refused, an {id} can be unknown, a role can be missing…) and the {error} schema on every
 * 4xx/5xx. Answers a controller documents itself keep their description.
 */
export function withCommonAnswers(document: OpenAPIObject): OpenAPIObject {
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, [ERROR_SCHEMA_NAME]: ERROR_SCHEMA },
  };
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      describeOperation(`${method.toUpperCase()} ${path}`, method, path, operation);
      seen.add(operation.operationId ?? '');
    }
  }
  const unknown = [...STORES_NOTHING].filter((id) => !seen.has(id));
  if (unknown.length > 0) throw new Error(`no such operation: ${unknown.join(', ')}`);
  return document;
}

function describeOperation(name: string, method: string, path: string, operation: OperationObject): void {
  const access = (operation as unknown as Record<string, unknown>)[ACCESS_EXTENSION];
  if (typeof access !== 'string') throw new Error(`${name} declares no access (RequireAccess)`);
  operation.security = access === 'public' ? [] : AUTHENTICATED;

  const write = method !== 'get' && method !== 'head';
  const takesBody = operation.requestBody !== undefined;
  const takesInput = takesBody || (operation.parameters?.length ?? 0) > 0;
  const answers: Record<string, string> = {};
  if (takesInput) answers['400'] = 'invalid body or parameters; the error names the field';
  if (access !== 'public') answers['401'] = 'not signed in, the session has expired, or the API key is wrong';
  const forbidden = [
    access === 'operator' || access === 'admin' ? `the ${access} role or higher is needed` : '',
    write ? 'a cookie-authenticated write whose Origin is another site' : '',
  ].filter(Boolean);
  if (forbidden.length > 0) answers['403'] = `refused: ${forbidden.join('; or ')}`;
  if (path.includes('{')) answers['404'] = 'nothing with that id or name';
  if (takesBody) {
    answers['413'] = 'the request body is over the size limit (1 MiB)';
    answers['415'] = 'the body is not sent as Content-Type application/json';
  }
  answers['500'] = 'server failure: a generic message; the cause is only in the log';
  if (write && !STORES_NOTHING.has(operation.operationId ?? '')) {
    answers['503'] = 'the database cannot be written right now; nothing was written';
    answers['507'] = 'the disk holding the database is full; nothing was written';
  }

  for (const [status, description] of Object.entries(answers)) {
    operation.responses[status] ??= { description };
  }
  for (const [status, response] of Object.entries(operation.responses)) {
    if (Number(status) >= 400) withErrorBody(response as ResponseObject);
  }
  operation.responses = sortedByStatus(operation.responses);
}

function withErrorBody(response: ResponseObject): void {
  response.content ??= {
    'application/json': { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA_NAME}` } },
  };
}

function sortedByStatus<T>(responses: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
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
