import { JsonScanError, JsonTableScanner, MAX_VALUE_DEPTH, type ScanHandler } from './json-table-scanner';

type Event = [string, ...unknown[]];

/** Feeds `text` in chunks of `size` bytes and answers what the handler saw. */
function scan(text: string, size = Number.MAX_SAFE_INTEGER, maxValueBytes?: number): Event[] {
  const events: Event[] = [];
  const handler: ScanHandler = {
    value: (key, value) => events.push(['value', key, value]),
    tableStart: (key, offset) => events.push(['start', key, offset]),
    row: (key, index, value) => events.push(['row', key, index, value]),
    tableEnd: (key, rows, end) => events.push(['end', key, rows, end]),
  };
  const scanner = new JsonTableScanner(handler, maxValueBytes);
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) scanner.feed(bytes.subarray(i, i + size));
  scanner.end();
  return events;
}

const DOC = JSON.stringify({
  format: 'monitor-backup',
  format_version: 1,
  settings: { map: { tile_url: 'https://t/{z}/{x}/{y}', note: 'a "quoted" ] } [ {' } },
  api_key: null,
  sites: [],
  sensors: [
    { name: 'wéb ✓', tags: ['a\\"b', ']'], options: { nested: [1, [2, { three: 3 }]] } },
    { name: 'db', n: -1.5e3, ok: true, none: null },
  ],
  numbers: [1, -2.5, 3e2, true, false, null, 'x'],
});

describe('JsonTableScanner', () => {
  it('hands over top-level values and array rows as JSON.parse reads them, however the input is split', () => {
    const whole = scan(DOC);
    const parsed = JSON.parse(DOC) as Record<string, unknown>;
    expect(whole.filter((e) => e[0] === 'value')).toEqual([
      ['value', 'format', 'monitor-backup'],
      ['value', 'format_version', 1],
      ['value', 'settings', parsed.settings],
      ['value', 'api_key', null],
    ]);
    expect(whole.filter((e) => e[0] === 'row' && e[1] === 'sensors').map((e) => e[3])).toEqual(
      parsed.sensors,
    );
    expect(whole.filter((e) => e[0] === 'row' && e[1] === 'numbers').map((e) => e[3])).toEqual(
      parsed.numbers,
    );
    for (const size of [1, 2, 3, 7, 64]) expect(scan(DOC, size)).toEqual(whole);
  });

  it('reports where each array lies, in bytes', () => {
    const text = ` {"a": 1, "t" : [ {"x": "ü"} , 2 ] , "e":[]}`;
    const events = scan(text, 5);
    const start = events.find((e) => e[0] === 'start' && e[1] === 't')![2] as number;
    const end = events.find((e) => e[0] === 'end' && e[1] === 't')![3] as number;
    expect(Buffer.from(text).subarray(start, end).toString()).toBe('[ {"x": "ü"} , 2 ]');
    expect(events).toContainEqual(['end', 'e', 0, expect.any(Number)]);
  });

  it('accepts whitespace anywhere JSON does, and an empty object', () => {
    expect(scan(' \n{ }\r\n\t')).toEqual([]);
    expect(scan('{\n "k"\n:\n[\n1\n,\n2\n]\n}')).toEqual([
      ['start', 'k', 9],
      ['row', 'k', 0, 1],
      ['row', 'k', 1, 2],
      ['end', 'k', 2, 18],
    ]);
  });

  it.each([
    ['[1, 2]', /must be a JSON object/],
    ['{"a": 1', /unexpected end/],
    ['{"a": [1, 2', /unexpected end/],
    ['{"a": [1, 2,]}', /expected a value/],
    ['{"a": [1 2]}', /expected "," or "]" after row 0 of a/],
    ['{"a" 1}', /expected ":"/],
    ['{a: 1}', /expected a key/],
    ['{"a": 1,}', /expected a key/],
    ['{"a": 1} x', /after the end of the document/],
    ['{"a": 1, "a": 2}', /names "a" twice/],
    ['{"a": [{"b": tru}]}', /row 0 of a is not valid JSON/],
    ['{"a": [1, 01]}', /row 1 of a is not valid JSON/],
    ['{"a": nul}', /malformed JSON/],
    ['{"a": [}', /expected a value/],
  ])('refuses %s', (text, error) => {
    for (const size of [1, 4, 1000]) expect(() => scan(text, size)).toThrow(error);
    expect(() => scan(text)).toThrow(JsonScanError);
  });

  it('refuses a row larger than the limit without holding more than that', () => {
    const text = `{"t": [${JSON.stringify('x'.repeat(100))}]}`;
    expect(() => scan(text, 10, 64)).toThrow(/row 0 of t is larger than 64 bytes/);
    expect(scan(text, 10, 200)).toHaveLength(3);
  });

  it('refuses a row or value nested deeper than the limit, however the input is split', () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const deep = 100_000;
    for (const size of [7, 1000, Number.MAX_SAFE_INTEGER]) {
      expect(() => scan(`{"t": [${nested(deep)}]}`, size)).toThrow(
        `row 0 of t is nested deeper than ${MAX_VALUE_DEPTH} levels`,
      );
      expect(() => scan(`{"s": {"k": ${nested(deep)}}}`, size)).toThrow(
        `a value is nested deeper than ${MAX_VALUE_DEPTH} levels`,
      );
    }
    // Strings may hold brackets freely; exactly the limit is accepted.
    expect(scan(`{"t": ["${'['.repeat(1000)}", ${nested(MAX_VALUE_DEPTH)}]}`)).toHaveLength(4);
  });
});
