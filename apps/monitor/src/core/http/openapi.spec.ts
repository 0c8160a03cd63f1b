import type { OpenAPIObject, OperationObject } from '@nestjs/swagger';
import { withCommonAnswers } from './openapi';

const ERROR_BODY = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } };

type Operations = Record<string, Record<string, Partial<OperationObject> & Record<string, unknown>>>;

function documentWith(paths: Operations): OpenAPIObject {
  const withIds: Operations = Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, op]) => [
          method,
          { operationId: `${method} ${path}`, responses: { '200': { description: 'ok' } }, ...op },
        ]),
      ),
    ]),
  );
  // The operations the rule names as storing nothing must exist, or it refuses the document.
  for (const id of [
    'AuthController_logout',
    'SensorsController_validate',
    'ChannelsController_testDraft',
    'ChannelsController_test',
    'DoctorController_run',
  ]) {
    withIds[`/${id}`] = {
      post: { operationId: id, 'x-access': 'public', responses: { '200': { description: 'ok' } } },
    };
  }
  return { openapi: '3.0.0', info: { title: 't', version: '1' }, paths: withIds } as unknown as OpenAPIObject;
}

describe('withCommonAnswers', () => {
  it('makes public operations need nothing and the rest accept any of the three ways in', () => {
    const doc = withCommonAnswers(
      documentWith({
        '/open': { get: { 'x-access': 'public' } },
        '/closed': { get: { 'x-access': 'viewer' } },
      }),
    );
    expect(doc.paths['/open'].get?.security).toEqual([]);
    expect(doc.paths['/closed'].get?.security).toEqual([
      { api_key: [] },
      { bearer: [] },
      { session_cookie: [] },
    ]);
    expect(Object.keys(doc.paths['/open'].get?.responses ?? {})).toEqual(['200', '500']);
    expect(Object.keys(doc.paths['/closed'].get?.responses ?? {})).toEqual(['200', '401', '500']);
    expect(doc.components?.schemas?.ErrorResponse).toMatchObject({ required: ['error'] });
  });

  it('derives the error answers from the role, the method, the body and the path', () => {
    const doc = withCommonAnswers(
      documentWith({
        '/things/{id}': {
          put: {
            'x-access': 'admin',
            requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
            parameters: [{ name: 'id', in: 'path', required: true }],
          },
        },
      }),
    );
    const responses = doc.paths['/things/{id}'].put?.responses ?? {};
    expect(Object.keys(responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '500',
      '503',
      '507',
    ]);
    expect(responses['403']).toEqual({
      description:
        'refused: the admin role or higher is needed; or a cookie-authenticated write whose Origin is another site',
      content: ERROR_BODY,
    });
    expect(responses['200']).toEqual({ description: 'ok' });
  });

  it('keeps what a controller documented and adds the error body to it', () => {
    const doc = withCommonAnswers(
      documentWith({
        '/setup': {
          post: {
            'x-access': 'public',
            responses: { '200': { description: 'ok' }, '409': { description: 'done' } },
          },
        },
      }),
    );
    expect(doc.paths['/setup'].post?.responses['409']).toEqual({ description: 'done', content: ERROR_BODY });
    expect(doc.paths['/setup'].post?.responses['403']).toMatchObject({ content: ERROR_BODY });
  });

  it('refuses an operation that declares no access', () => {
    expect(() => withCommonAnswers(documentWith({ '/forgotten': { get: {} } }))).toThrow(
      'GET /forgotten declares no access (RequireAccess)',
    );
  });
});
