import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAIN_JS, REPO_ROOT, RunningServer, startServer } from '../support/server-process';

jest.setTimeout(60_000);

/**
 * Sorts `enum` lists: the Swagger plugin writes a string-literal union in the compiler's type
 * order, which is not stable from one compilation to the next.
 */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === 'enum' && Array.isArray(inner) ? [...inner].sort() : normalize(inner),
    ]),
  );
}

/** The committed docs/openapi.json must be what the built server publishes (npm run openapi). */
describe('OpenAPI document', () => {
  let server: RunningServer;

  beforeAll(async () => {
    if (!fs.existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: run npm run build first`);
    server = await startServer();
  });

  afterAll(async () => {
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('matches the committed docs/openapi.json', async () => {
    const published = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as object;
    const committed = JSON.parse(
      fs.readFileSync(path.join(REPO_ROOT, 'docs/openapi.json'), 'utf8'),
    ) as object;
    expect(normalize(published)).toEqual(normalize(committed));
  });

  it('documents every response body with its properties', async () => {
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect([name, Object.keys(schema.properties ?? {}).length > 0]).toEqual([name, true]);
    }
  });
});
