import * as http from 'node:http';
import { listen, stop } from '../testing/net';
import { HttpProbe, MAX_BODY_BYTES } from './http.probe';
import { jsonCheckOf, runJsonCheck, validateJsonCheck } from './json-check';

const DOCUMENT = {
  status: 'ok',
  version: '2.10.1',
  uptime: 99.95,
  queue: 12,
  depth: '42',
  healthy: true,
  broken: false,
  maintenance: null,
  'odd.key': 'dotted',
  checks: [
    { name: 'db', status: 'up', latency: 3 },
    { name: 'cache', status: 'down', latency: 250 },
  ],
  tags: ['eu', 'prod'],
  nested: { deep: { value: 7 } },
};

/** A JSON target on 127.0.0.1: / answers DOCUMENT, /text a page, /big a cut JSON body, /scalar 42. */
function target(): http.Server {
  return http.createServer((req, res) => {
    switch (req.url ?? '/') {
      case '/text':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>fine</html>');
        return;
      case '/big':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"pad":"${'a'.repeat(2 * MAX_BODY_BYTES)}","status":"ok"}`);
        return;
      case '/scalar':
        res.writeHead(200, { 'content-type': 'application/json' }).end('42');
        return;
      case '/error':
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"ok"}');
        return;
      default:
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(DOCUMENT));
    }
  });
}

describe('JSON checks of the http probe against a local target', () => {
  const probe = new HttpProbe();
  const server = target();
  let base = '';
  beforeAll(async () => {
    base = `http://127.0.0.1:${await listen(server)}`;
  });
  afterAll(async () => {
    await probe.close();
    await stop(server);
  });
  const run = (options: Record<string, unknown>, path = '/') =>
    probe.run({ target: `${base}${path}`, options, timeoutMs: 5000, signal: new AbortController().signal });

  // [json_path, json_operator, json_expected, failure message or null for success]
  it.each<[string, string | undefined, string | undefined, string | null]>([
    ['$.status', undefined, 'ok', null],
    ['$.status', '==', 'degraded', 'JSON $.status is "ok", expected == "degraded"'],
    ['$.status', '!=', 'degraded', null],
    ['$.status', '!=', 'ok', 'JSON $.status is "ok", expected != "ok"'],
    ['$.queue', '<', '100', null],
    ['$.queue', '<', '12', 'JSON $.queue is 12, expected < "12"'],
    ['$.queue', '<=', '12', null],
    ['$.queue', '>', '12', 'JSON $.queue is 12, expected > "12"'],
    ['$.queue', '>=', '12', null],
    ['$.uptime', '>=', '99.9', null],
    ['$.uptime', '==', '99.950', null],
    ['$.queue', '==', '12', null],
    ['$.depth', '>', '40', null],
    ['$.depth', '==', '42.0', 'JSON $.depth is "42", expected == "42.0"'],
    ['$.status', '>', '1', 'JSON $.status is "ok", which is not a number, expected > "1"'],
    ['$.version', 'contains', '2.10', null],
    ['$.version', 'contains', '3.', 'JSON $.version is "2.10.1", expected contains "3."'],
    ['$.tags', 'contains', 'prod', null],
    ['$.tags', 'contains', 'pro', 'JSON $.tags is ["eu","prod"], expected contains "pro"'],
    ['$.checks[*].status', 'contains', 'down', null],
    ['$.checks[*].status', '==', '["up","down"]', null],
    ["$.checks[?@.status == 'down'].name", '==', 'cache', null],
    [
      '$.checks[?@.latency > 100].name',
      '==',
      'db',
      'JSON $.checks[?@.latency > 100].name is "cache", expected == "db"',
    ],
    ['$.checks[?(@.status=="down")].latency', '>=', '250', null],
    [
      "$.checks[?@.status == 'gone']",
      undefined,
      undefined,
      "JSON $.checks[?@.status == 'gone'] matched nothing",
    ],
    ['$.checks[?count(@.*) == 3 && @.latency < 10].name', '==', 'db', null],
    ["$.tags[?match(@, 'p.*')]", '==', 'prod', 'unreachable: refused on save'],
    ["$.tags[?search(@, 'p')]", '==', 'prod', 'unreachable: refused on save'],
    ['$.healthy', '==', 'true', null],
    ['$.broken', '==', 'true', 'JSON $.broken is false, expected == "true"'],
    ['$.maintenance', '==', 'null', null],
    ['$.maintenance', '!=', 'null', 'JSON $.maintenance is null, expected != "null"'],
    ['$.checks[0].name', '==', 'db', null],
    ['$.checks[-1].name', '==', 'cache', null],
    ["$['odd.key']", '==', 'dotted', null],
    ['$..value', '==', '7', null],
    ['$.nested.deep', '==', '{"value":7}', null],
    ['$.checks[1].latency', '<', '100', 'JSON $.checks[1].latency is 250, expected < "100"'],
    ['$.missing', '==', 'ok', 'JSON $.missing matched nothing, expected == "ok"'],
    ['$.checks[5]', undefined, undefined, 'JSON $.checks[5] matched nothing'],
    ['$.checks[1]', undefined, undefined, null],
  ])('%s %s %s', async (json_path, json_operator, json_expected, expected) => {
    const options: Record<string, unknown> = { json_path };
    if (json_operator !== undefined) options['json_operator'] = json_operator;
    if (json_expected !== undefined) options['json_expected'] = json_expected;
    if (expected === 'unreachable: refused on save') {
      expect(probe.validate(`${base}/`, options)).toMatch(/^options\.json_path is not a valid JSONPath/);
      return;
    }
    expect(probe.validate(`${base}/`, options)).toBeNull();
    const outcome = await run(options);
    expect({ success: outcome.success, message: outcome.message }).toEqual(
      expected === null ? { success: true, message: 'HTTP 200' } : { success: false, message: expected },
    );
  });

  it('fails a body that is not JSON, saying so', async () => {
    const outcome = await run({ json_path: '$.status', json_expected: 'ok' }, '/text');
    expect(outcome).toMatchObject({ success: false, message: 'JSON $.status: the body is not valid JSON' });
  });

  it('says so when a JSON body was cut at the read limit', async () => {
    const outcome = await run({ json_path: '$.status', json_expected: 'ok' }, '/big');
    expect(outcome).toMatchObject({
      success: false,
      message: `JSON $.status: the body is not valid JSON (only its first ${MAX_BODY_BYTES} bytes are read)`,
    });
  });

  it('judges a scalar document with $', async () => {
    expect((await run({ json_path: '$', json_operator: '>', json_expected: '41' }, '/scalar')).success).toBe(
      true,
    );
  });

  it('checks the status first, and the keyword as well', async () => {
    expect((await run({ json_path: '$.status', json_expected: 'ok' }, '/error')).message).toBe('HTTP 503');
    expect(await run({ keyword: 'nope', json_path: '$.status', json_expected: 'ok' })).toMatchObject({
      success: false,
      message: 'keyword "nope" not found',
    });
    expect((await run({ keyword: 'db', json_path: '$.status', json_expected: 'ok' })).success).toBe(true);
  });
});

describe('validateJsonCheck', () => {
  it.each<[Record<string, unknown>, string | null]>([
    [{}, null],
    [{ json_path: '$.a' }, null],
    [{ json_path: '$.a', json_expected: '' }, null],
    [{ json_path: '$..items[0:2].name', json_operator: 'contains', json_expected: 'x' }, null],
    [{ json_path: '$[\'a b\']["c"][0,1]', json_operator: '!=', json_expected: 'x' }, null],
    [{ json_expected: 'ok' }, 'options.json_expected needs options.json_path'],
    [{ json_operator: '==' }, 'options.json_operator needs options.json_path'],
    [
      { json_path: '$.a', json_operator: '=~', json_expected: 'x' },
      'options.json_operator must be one of ==, !=, <, <=, >, >=, contains',
    ],
    [
      { json_path: '$.a', json_operator: '<' },
      'options.json_expected is required with options.json_operator <',
    ],
    [
      { json_path: '$.a', json_operator: '>=', json_expected: 'ten' },
      'options.json_expected must be a number for options.json_operator >=',
    ],
    [{ json_path: 42 }, 'options.json_path must be a string'],
    [{ json_path: '$.a', json_expected: 5 }, 'options.json_expected must be a string'],
    [{ json_path: ' $.a ' }, null],
    [{ json_path: "$.checks[?@.status == 'down']" }, null],
    [{ json_path: '$.checks[?(@.latency > 100 || !@.name)]' }, null],
    [{ json_path: "$['a.b','c'][::0]" }, null],
    [
      { json_path: 'status' },
      "options.json_path is not a valid JSONPath expression: expected '$', found 's' ('status':0)",
    ],
    [
      { json_path: '$[' },
      "options.json_path is not a valid JSONPath expression: unclosed bracketed selection ('$[':2)",
    ],
    [
      { json_path: '$.' },
      'options.json_path is not a valid JSONPath expression: a name or * must follow the final .',
    ],
    [
      { json_path: '$.a[0].' },
      'options.json_path is not a valid JSONPath expression: a name or * must follow the final .',
    ],
    [
      { json_path: '$.a b' },
      "options.json_path is not a valid JSONPath expression: expected '.', '..' or a bracketed selection, found 'b' ('$.a b':4)",
    ],
    [
      { json_path: "$['a" },
      "options.json_path is not a valid JSONPath expression: unclosed string starting at index 3 ('$['a':4)",
    ],
    [
      { json_path: '$.a[(@.length-1)]' },
      "options.json_path is not a valid JSONPath expression: unexpected token '(' in bracketed selection ('$.a[(@.le':4)",
    ],
    [
      { json_path: '$.a[?@.b = 1]' },
      "options.json_path is not a valid JSONPath expression: unexpected filter selector token '=' ('?@.b = 1]':9)",
    ],
    [
      { json_path: '$.a[?length(@)]' },
      "options.json_path is not a valid JSONPath expression: result of length()  must be compared ('.a[?lengt':5)",
    ],
    [
      { json_path: "$.a[?match(@.b, 'x.*')]" },
      "options.json_path is not a valid JSONPath expression: no such function 'match' ('.a[?match':5)",
    ],
    [
      { json_path: "$.a[?search(@.b, 'x')]" },
      "options.json_path is not a valid JSONPath expression: no such function 'search' ('.a[?searc':5)",
    ],
  ])('%p', (options, expected) => {
    expect(validateJsonCheck(options)).toBe(expected);
  });
});

describe('JSONPath evaluation (RFC 9535 by json-p3)', () => {
  const doc = { a: [1, 2, 3, 4], 'x,y': 1, $: 'dollar', '*': 'star', b: { a: 9 }, 'a.b': 5, c: 6 };
  // [expression, the string form of what it selects: one match its value, several their array]
  it.each<[string, string]>([
    ['$', JSON.stringify(doc)],
    ['$.a[1:3]', '[2,3]'],
    ['$.a[::-1]', '[4,3,2,1]'],
    ['$.a[-2]', '3'],
    ['$.a[0,3]', '[1,4]'],
    ['$.a[*]', '[1,2,3,4]'],
    ["$['x,y']", '1'],
    ["$['$']", 'dollar'],
    ['$["*"]', 'star'],
    ["$['a.b','c']", '[5,6]'],
    ['$..a', '[[1,2,3,4],9]'],
    ['$.b.*', '9'],
    ['$.a[?@ > 2]', '[3,4]'],
    ['$[?@.a == 9].a', '9'],
  ])('%s', (expression, values) => {
    const check = jsonCheckOf({ json_path: expression, json_expected: values });
    expect(check).not.toBeNull();
    expect(runJsonCheck(check!, JSON.stringify(doc), null)).toBeNull();
  });

  it('fails a descendant search deeper than json-p3 follows, saying so', () => {
    const check = jsonCheckOf({ json_path: '$..x' });
    const deep = `${'['.repeat(60)}{"x":1}${']'.repeat(60)}`;
    expect(runJsonCheck(check!, deep, null)).toBe(
      "JSON $..x could not be evaluated: recursion limit reached ('$..x':1)",
    );
  });
});
