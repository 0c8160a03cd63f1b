import fc from 'fast-check';
import type { Exchange } from './fuzz-checks';
import { bodyFor, BodySpec, hostileValue } from './fuzz-inputs';
import type { SchemaNode, Schemas } from './fuzz-inputs';
import type { NetworkFence } from './fuzz-network-fence';
import type { CallerName, FuzzWorld, Pools } from './fuzz-world';
import type { TestApp } from './test-app';

export interface Parameter {
  name: string;
  in: string;
  schema: SchemaNode;
}
export interface Operation {
  key: string;
  method: string;
  path: string;
  parameters: Parameter[];
  bodySchema?: SchemaNode;
  responses: string[];
  inCommittedCopy: boolean;
}
export interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { content: Record<string, { schema: SchemaNode }> };
        responses?: Record<string, unknown>;
      }
    >
  >;
  components: { schemas: Schemas };
}

/** Creators first (they fill the id pools), then reads, changes, deletions, restore last. */
function phase(op: Operation): number {
  if (op.key === 'POST /api/restore') return 5;
  if (op.method === 'DELETE') return 4;
  if (
    op.method === 'POST' &&
    !op.path.includes('{') &&
    /\/api\/(users|sensors|channels|sites|maintenance|examples|status-pages)$/.test(op.path)
  )
    return 1;
  if (op.method === 'GET') return 2;
  return 3;
}

/**
 * The operations of the served document. Under jest the Nest swagger plugin does not run, so the
 * served document names every operation but its request schemas are empty: those come from the
 * committed copy the build generated (docs/openapi.json), matched by method and path.
 */
export function operationsOf(served: OpenApiDocument, committed: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(served.paths))
    for (const [method, op] of Object.entries(methods)) {
      const built = committed.paths[path]?.[method];
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        bodySchema: (built ?? op).requestBody?.content['application/json']?.schema,
        responses: Object.keys({ ...op.responses, ...built?.responses }),
        inCommittedCopy: built !== undefined,
      });
    }
  return ops.sort((a, b) => phase(a) - phase(b));
}

export function poolFor(op: Operation, pools: Pools, world: FuzzWorld): number[] {
  const changes = op.method !== 'GET';
  const [, , resource] = op.path.split('/');
  if (resource === 'users') return pools.users;
  if (resource === 'sensors')
    return pools.sensors.filter((id) => !(changes && world.guarded.sensors.has(id)));
  if (resource === 'channels')
    return pools.channels.filter((id) => !(changes && world.guarded.channels.has(id)));
  if (resource === 'incidents') return pools.incidents;
  if (resource === 'maintenance') return pools.maintenance;
  if (resource === 'status-pages') return pools.statusPages;
  return [];
}

/** Restore bodies: this installation's own backup, broken in one place, or no backup at all. */
export function restoreBodies(base: Record<string, unknown>): fc.Arbitrary<BodySpec> {
  const keys = Object.keys(base);
  const tables = keys.filter((k) => Array.isArray(base[k]) && (base[k] as unknown[]).length > 0);
  const json = (value: unknown): BodySpec => ({ kind: 'json', value });
  const options: fc.Arbitrary<BodySpec>[] = [
    fc.constant(json(base)),
    fc.tuple(fc.constantFrom(...keys), hostileValue).map(([k, v]) => json({ ...base, [k]: v })),
    fc
      .constantFrom(...keys)
      .map((k) => json(Object.fromEntries(Object.entries(base).filter(([key]) => key !== k)))),
    bodyFor(undefined, {}),
  ];
  if (tables.length)
    options.push(
      fc
        .tuple(fc.constantFrom(...tables), fc.string({ maxLength: 12 }), hostileValue)
        .map(([table, field, value]) => {
          const rows = [...(base[table] as Record<string, unknown>[])];
          const row = rows[0];
          const fields = Object.keys(row);
          const name = fields.length && field.length % 2 === 0 ? fields[field.length % fields.length] : field;
          rows[0] = { ...row, [name]: value };
          return json({ ...base, [table]: rows });
        }),
    );
  return fc.oneof(...options);
}

export interface Input {
  caller: CallerName;
  params: Record<string, string>;
  query: string;
  body: BodySpec;
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Sends one generated request as its caller and records what came back. */
export async function send(
  t: TestApp,
  fence: NetworkFence,
  world: FuzzWorld,
  op: Operation,
  input: Input,
): Promise<Exchange> {
  const caller = world.callers[input.caller];
  const target = op.path.replace(/\{(\w+)\}/g, (_, name: string) => input.params[name]) + input.query;
  let body = input.body;
  // A draft with probe: true would be probed: the fuzzer never asks for that.
  if (op.key === 'POST /api/sensors/validate' && body.kind === 'json' && isObject(body.value))
    body = { kind: 'json', value: { ...body.value, probe: false } };
  const payload =
    body.kind === 'json' ? JSON.stringify(body.value) : body.kind === 'raw' ? body.text : undefined;
  const contentType =
    body.kind === 'json' ? 'application/json' : body.kind === 'raw' ? body.contentType : null;
  const before = fence.attempts.length;
  const exchange: Exchange = {
    operation: op.key,
    method: op.method,
    path: target,
    pathParams: input.params,
    caller,
    body,
    payload,
    contentType,
    status: 0,
    responseType: '',
    responseText: '',
    attachment: false,
    outbound: [],
  };
  try {
    const response = await fetch(`${t.url}${target}`, {
      method: op.method,
      headers: {
        ...(op.key === 'GET /api/events' ? { accept: 'text/event-stream' } : {}),
        ...caller.headers,
        ...(contentType ? { 'content-type': contentType } : {}),
      },
      body: payload,
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
    exchange.status = response.status;
    exchange.responseType = response.headers.get('content-type') ?? '';
    exchange.attachment = (response.headers.get('content-disposition') ?? '').startsWith('attachment');
    if (exchange.responseType.startsWith('text/event-stream')) await response.body?.cancel();
    else exchange.responseText = await response.text();
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause;
    exchange.transportError = `${(error as Error).message}${cause ? `: ${cause.message}` : ''}`;
  }
  exchange.outbound = fence.attempts.slice(before);
  return exchange;
}
/**
 * Entitled callers more often than the others (their requests reach the handlers); oversized
 * headers stop a request before anything else is read, so that caller is rare.
 */
export const callerArbitrary = (
  callers: readonly CallerName[],
  entitled: (c: CallerName) => boolean,
): fc.Arbitrary<CallerName> =>
  fc.oneof(
    ...callers.map((c) => ({
      weight: c === 'oversized-headers' ? 1 : entitled(c) ? 6 : 2,
      arbitrary: fc.constant(c),
    })),
  );

/** The tag that names the likeliest cause, for grouping (all tags still go to the known list). */
export const CAUSES = [
  'oversized-headers',
  'over-long-url',
  'over-long-param',
  'bad-percent-encoding',
  'over-limit-body',
  'deep-nesting',
  'lone-surrogate',
  'bad-percent-query',
];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
