import { createNotifierCatalogue } from '@monitor/notifiers';
import { COMMON_OPTIONS, createProbeCatalogue } from '@monitor/probes';
import fc from 'fast-check';

/** A JSON Schema node of the served OpenAPI document (the subset the generators read). */
export interface SchemaNode {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: boolean | SchemaNode;
}

export type Schemas = Record<string, SchemaNode>;

/** What goes in the request body: nothing, a JSON value, or raw text with its own content type. */
export type BodySpec =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; text: string; contentType: string | null };

// ----- hostile leaves -------------------------------------------------------------------------

const ODD_TEXT = [
  '\u0000',
  'a\u0000b',
  '\u202eevil', // right-to-left override
  '\ufeffbom',
  '\uffff\ufffe',
  '😀👩‍👩‍👧',
  'e\u0301\u0301\u0301',
  '\u0085\u2028\u2029',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '   ',
  '',
  '%00%ff',
  '../../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '{{.}}{{range .}}{{end}}',
  '{{template "x" .}}',
  '%s%n%x',
  '\r\nX-Injected: 1',
  '__stored__',
  'null',
  '0x7fffffff',
];

/** Strings that are not valid Unicode: unpaired UTF-16 surrogates. */
const LONE_SURROGATES = ['\ud800', 'name\udfff', '\udc00\ud800', 'ok\ud83d'];

const HUGE_NUMBERS = [
  1e308,
  -1e308,
  2 ** 53 + 1,
  -(2 ** 53) - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  -1,
  -0,
  0,
  0.5,
  1e-320,
  99999999999,
];

export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 3, arbitrary: fc.constantFrom(...ODD_TEXT) },
  { weight: 2, arbitrary: fc.constantFrom(...LONE_SURROGATES) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('x', 'é', '😀', '\u0000'), fc.integer({ min: 5_000, max: 300_000 }))
      .map(([unit, count]) => unit.repeat(count)),
  },
);

/** Nested arrays or objects `depth` levels deep around `leaf`, built without recursion. */
export function nested(depth: number, shape: 'array' | 'object', leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = shape === 'array' ? [value] : { a: value };
  return value;
}

export const deepValue: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 200, max: 3000 }), fc.constantFrom('array' as const, 'object' as const))
  .map(([depth, shape]) => nested(depth, shape));

/** Any JSON value, chosen to have the wrong type or an unreasonable size for most fields. */
export const shortOddString = oddString.filter((s) => s.length < 500);

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.constantFrom(...HUGE_NUMBERS) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 4, arbitrary: oddString },
  { weight: 1, arbitrary: fc.array(fc.oneof(fc.integer(), oddString), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), fc.integer(), { maxKeys: 3 }) },
  { weight: 1, arbitrary: deepValue },
);

// ----- valid-ish values from the document's schemas -------------------------------------------

const resolve = (node: SchemaNode, schemas: Schemas): SchemaNode =>
  node.$ref ? resolve(schemas[node.$ref.replace('#/components/schemas/', '')] ?? {}, schemas) : node;

/** Read-only response fields appear in input DTOs as a bare `{type: object}`: never send them. */
const isReadOnlyMarker = (node: SchemaNode): boolean =>
  node.type === 'object' && !node.properties && node.additionalProperties === undefined;

const iso = fc
  .integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2030-01-01T00:00:00Z') })
  .map((ms) => new Date(ms).toISOString());

/** Plausible values for fields whose meaning the schema's type alone does not carry. */
function byFieldName(name: string): fc.Arbitrary<unknown> | undefined {
  if (/_at$|^since$/.test(name)) return iso;
  if (/password/.test(name))
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant('long enough password') },
      { weight: 1, arbitrary: fc.constantFrom('short', 'x'.repeat(80), 'pass\ud800word!') },
    );
  if (name === 'username')
    return fc.oneof(
      { weight: 4, arbitrary: fc.stringMatching(/^[a-z][a-z0-9]{2,12}$/) },
      { weight: 1, arbitrary: fc.constantFrom('user\ud800', 'ü\u0301ser', 'admin') },
    );
  if (name === 'version') return fc.integer({ min: 0, max: 20 });
  if (name === 'target') return fc.constantFrom('127.0.0.1', '127.0.0.1:9', 'http://127.0.0.1:9/', 'c1');
  if (name === 'tile_url') return fc.constantFrom('', 'http://127.0.0.1:9/{z}/{x}/{y}.png', 'ftp://x');
  if (name === 'language') return fc.constantFrom('en', 'de-CH', 'xx-');
  if (name === 'code') return fc.stringMatching(/^[0-9]{6}$/);
  if (name === 'config') return optionsOf(CHANNEL_FIELDS);
  if (name === 'options') return optionsOf(SENSOR_OPTIONS);
  if (/_template$/.test(name))
    return fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          '',
          '{{.Sensor.Name}} is {{.Event}}',
          '{{',
          '{{end}}',
          '{{template "t" .}}',
        ),
      },
      {
        weight: 1,
        arbitrary: fc
          .integer({ min: 50, max: 3000 })
          .map((n) => `${'{{if 1}}'.repeat(n)}x${'{{end}}'.repeat(n)}`),
      },
      {
        weight: 1,
        arbitrary: fc.integer({ min: 50, max: 3000 }).map((n) => `{{${'('.repeat(n)}1${')'.repeat(n)}}}`),
      },
      { weight: 2, arbitrary: oddString },
    );
  return undefined;
}

/** Option and config names the server knows (from the catalogues), so their values are tested. */
const probes = createProbeCatalogue();
const SENSOR_OPTIONS = [
  ...new Set([...COMMON_OPTIONS, ...probes.types().flatMap((type) => probes.get(type)?.optionNames ?? [])]),
];
const CHANNEL_FIELDS = [
  ...new Set(
    createNotifierCatalogue()
      .definitions()
      .flatMap((d) => d.fields.map((f) => f.name)),
  ),
];

/** Known names with values that fit them or not, now and then a stray name. */
const optionsOf = (names: string[]): fc.Arbitrary<Record<string, unknown>> =>
  fc.oneof(
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        {},
        { timeout: 5 },
        { url: 'http://127.0.0.1:9/hook' },
        { webhook_url: 'http://127.0.0.1:9/hook' },
      ),
    },
    {
      weight: 3,
      arbitrary: fc.dictionary(
        fc.constantFrom(...names),
        fc.oneof(
          fc.constantFrom(
            1,
            0,
            true,
            'GET',
            '200-299',
            'A',
            'udp',
            '1.3.6.1.2.1.1.3.0',
            'http://127.0.0.1:9/x',
            { 'x-a': 'b' },
          ),
          hostileValue,
        ),
        { maxKeys: 4 },
      ),
    },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 3 }) },
  );

const SENSOR_KINDS = [
  { type: 'tcp', target: '127.0.0.1:9' },
  { type: 'http', target: 'http://127.0.0.1:9/health' },
  { type: 'ping', target: '127.0.0.1' },
  { type: 'dns', target: 'fuzz.invalid' },
  { type: 'docker', target: 'fuzz-container' },
  { type: 'snmp', target: '127.0.0.1', options: { oid: '1.3.6.1.2.1.1.3.0' } },
];

const CHANNEL_KINDS = [
  {
    type: 'email',
    config: {
      host: '127.0.0.1',
      port: '9',
      security: 'none',
      from: 'fuzz@example.com',
      to: 'ops@example.com',
    },
  },
  { type: 'webhook', config: { url: 'http://127.0.0.1:9/hook' } },
  { type: 'chat_webhook_a', config: { webhook_url: 'http://127.0.0.1:9/a' } },
  { type: 'chat_webhook_b', config: { webhook_url: 'http://127.0.0.1:9/b' } },
  { type: 'bot_messenger', config: { bot_token: '1:fuzz', chat_id: '1', api_url: 'http://127.0.0.1:9' } },
  {
    type: 'federated_chat',
    config: { homeserver_url: 'http://127.0.0.1:9', access_token: 'fuzz', room_id: '!r:127.0.0.1' },
  },
];

/**
 * Fields that only make sense together (a sensor's type and target, a channel's type and config,
 * both coordinates, a window's start before its end), so that valid-ish bodies are often valid.
 */
function coherentFields(props: Set<string>): fc.Arbitrary<Record<string, unknown>> | undefined {
  const neutral = {
    ...(props.has('channels') ? { channels: [] } : {}),
    ...(props.has('parent_id') ? { parent_id: null } : {}),
    ...(props.has('site') ? { site: '' } : {}),
  };
  if (props.has('type') && props.has('target'))
    return fc.constantFrom(...SENSOR_KINDS).map((k) => ({ ...neutral, ...k }));
  if (props.has('type') && props.has('config')) return fc.constantFrom(...CHANNEL_KINDS);
  if (props.has('starts_at') && props.has('ends_at'))
    return fc.tuple(iso, fc.integer({ min: 1, max: 10 ** 9 })).map(([start, ms]) => ({
      starts_at: start,
      ends_at: new Date(Date.parse(start) + ms).toISOString(),
      sensors: [],
    }));
  if (props.has('lat') && props.has('lon'))
    return fc.option(
      fc
        .tuple(fc.double({ min: -90, max: 90, noNaN: true }), fc.double({ min: -180, max: 180, noNaN: true }))
        .map(([lat, lon]) => ({ lat, lon })),
      { nil: {} },
    );
  return undefined;
}

/** A value that mostly satisfies `node`: right types, within bounds, required fields present. */
export function validish(node: SchemaNode, schemas: Schemas, field = '', depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(node, schemas);
  const special = byFieldName(field);
  if (special) return special;
  let value: fc.Arbitrary<unknown>;
  if (schema.enum) value = fc.constantFrom(...schema.enum);
  else if (schema.type === 'string')
    value = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.string({
          minLength: Math.max(schema.minLength ?? 0, 1),
          maxLength: Math.min(schema.maxLength ?? 30, 30),
        }),
      },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }) },
      { weight: 1, arbitrary: fc.constantFrom(...ODD_TEXT.filter((t) => t.trim() !== '')) },
      { weight: 1, arbitrary: fc.constantFrom(...LONE_SURROGATES) },
    );
  else if (schema.type === 'number' || schema.type === 'integer')
    value = fc.integer({ min: Math.ceil(schema.minimum ?? 0), max: Math.floor(schema.maximum ?? 60) });
  else if (schema.type === 'boolean') value = fc.boolean();
  else if (schema.type === 'array')
    value =
      depth > 3
        ? fc.constant([])
        : fc.array(validish(schema.items ?? {}, schemas, '', depth + 1), { maxLength: 4 });
  else if (schema.properties && depth <= 3) {
    const entries = Object.entries(schema.properties).filter(
      ([, p]) => !isReadOnlyMarker(resolve(p, schemas)),
    );
    const model = Object.fromEntries(entries.map(([k, p]) => [k, validish(p, schemas, k, depth + 1)]));
    const required = (schema.required ?? []).filter((k) => k in model);
    const generic = fc.record(model, { requiredKeys: required });
    const coherent = coherentFields(new Set(Object.keys(model)));
    value = coherent
      ? fc
          .tuple(generic, coherent, fc.integer({ min: 0, max: 9 }))
          .map(([g, c, dice]) => (dice < 7 ? { ...g, ...c } : g))
      : generic;
  } else
    value = fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), {
      maxKeys: 3,
    });
  return schema.nullable ? fc.option(value, { nil: null, freq: 8 }) : value;
}

/** A valid-ish object with one field broken, one field added, or the whole body swapped. */
export function bodyFor(schema: SchemaNode | undefined, schemas: Schemas): fc.Arbitrary<BodySpec> {
  const json = (value: fc.Arbitrary<unknown>): fc.Arbitrary<BodySpec> =>
    value.map((v) => ({ kind: 'json' as const, value: v }));
  const raw: fc.Arbitrary<BodySpec> = fc.oneof(
    fc.constantFrom<BodySpec>(
      { kind: 'raw', text: '{', contentType: 'application/json' },
      { kind: 'raw', text: '{"a":', contentType: 'application/json' },
      { kind: 'raw', text: "{'a': 1}", contentType: 'application/json' },
      { kind: 'raw', text: '', contentType: 'application/json' },
      { kind: 'raw', text: 'nul', contentType: 'application/json' },
      { kind: 'raw', text: '{"a":1}', contentType: 'text/plain' },
      { kind: 'raw', text: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' },
      { kind: 'raw', text: '--x\r\n\r\n--x--', contentType: 'multipart/form-data; boundary=x' },
      { kind: 'raw', text: '{"a":1}', contentType: 'application/json; charset=utf-16' },
      { kind: 'raw', text: '{"a":1}', contentType: null },
      {
        kind: 'raw',
        text: '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}',
        contentType: 'application/json',
      },
    ),
    // Just over the 1 MiB body limit.
    fc.integer({ min: 1024 * 1024, max: 1024 * 1024 + 4096 }).map((n) => ({
      kind: 'raw' as const,
      text: `{"name":"${'x'.repeat(n)}"}`,
      contentType: 'application/json',
    })),
  );
  const swapped = json(fc.oneof(hostileValue, fc.constant([]), fc.constant({})));
  if (!schema) {
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant<BodySpec>({ kind: 'none' }) },
      { weight: 2, arbitrary: swapped },
      { weight: 1, arbitrary: raw },
    );
  }
  const valid = validish(schema, schemas);
  const objectOf = (v: unknown): Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const props = Object.keys(resolve(schema, schemas).properties ?? {});
  const field = props.length ? fc.constantFrom(...props) : fc.string({ maxLength: 8 });
  const broken = fc
    .tuple(valid, field, hostileValue)
    .map(([v, key, bad]) => ({ ...objectOf(v), [key]: bad }));
  const extra = fc
    .tuple(
      valid,
      fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'id', 'role')),
      hostileValue,
    )
    .map(([v, key, bad]) => Object.assign(objectOf(v), Object.fromEntries([[key, bad]])));
  const deep = fc.tuple(valid, field, deepValue).map(([v, key, d]) => ({ ...objectOf(v), [key]: d }));
  return fc.oneof(
    { weight: 8, arbitrary: json(valid) },
    { weight: 5, arbitrary: json(broken) },
    { weight: 2, arbitrary: json(extra) },
    { weight: 1, arbitrary: json(deep) },
    { weight: 2, arbitrary: swapped },
    { weight: 2, arbitrary: raw },
    { weight: 1, arbitrary: fc.constant<BodySpec>({ kind: 'none' }) },
  );
}
