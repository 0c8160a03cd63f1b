import fc from 'fast-check';
import { shortOddString, validish } from './fuzz-inputs';
import type { SchemaNode, Schemas } from './fuzz-inputs';

// ----- path and query parameters --------------------------------------------------------------

/** WTF-8 percent-encoding: like encodeURIComponent, but a lone surrogate becomes its 3 raw bytes. */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

const JUNK_SEGMENTS = [
  '%ff',
  '%',
  '%zz',
  '%00',
  '%E0%A4%A',
  '%2e%2e',
  '%2F',
  '%20',
  '%F0%9F%98%80',
  'null',
  '[]',
  '{}',
];

/**
 * A raw (already encoded) path parameter: an existing id, spellings of one that a lax parser
 * reads as it, and ids that cannot exist. The spellings are of ids in `existing` only, so they
 * never name an account the fuzzer signs in with. With `existing` empty the ids are ones no
 * parser can read as a small number (for operations whose handler would reach out).
 */
export function pathIdArbitrary(existing: number[]): fc.Arbitrary<string> {
  const missing = fc.integer({ min: 900_000, max: 2_000_000_000 }).map(String);
  const weird = fc.constantFrom('-1', 'abc', '99999999999999999999999', 'NaN', '', ...JUNK_SEGMENTS);
  const long = fc.integer({ min: 90, max: 400 }).map((n) => '9'.repeat(n));
  const text = shortOddString
    .filter((s) => s.length < 200 && !/^[\s+\-.\de]*$|0[xbo]/i.test(s))
    .map(percentEncode);
  const options: { weight: number; arbitrary: fc.Arbitrary<string> }[] = [
    { weight: 2, arbitrary: missing },
    { weight: 3, arbitrary: weird },
    { weight: 1, arbitrary: long },
    { weight: 1, arbitrary: text },
  ];
  if (existing.length) {
    const id = fc.constantFrom(...existing);
    options.push({ weight: 8, arbitrary: id.map(String) });
    options.push({
      weight: 2,
      arbitrary: id.chain((n) =>
        fc.constantFrom(
          `0${n}`,
          `${n}.0`,
          `%2B${n}`,
          `%20${n}`,
          `0x${n.toString(16)}`,
          `${n}e0`,
          `0b${n.toString(2)}`,
          `${n}abc`,
        ),
      ),
    });
  }
  return fc.oneof(...options);
}

/** A raw path segment for a `{name}` parameter (site names). */
export function pathNameArbitrary(existing: string[]): fc.Arbitrary<string> {
  const options: { weight: number; arbitrary: fc.Arbitrary<string> }[] = [
    { weight: 3, arbitrary: shortOddString.filter((s) => s.length > 0 && s.length < 300).map(percentEncode) },
    { weight: 2, arbitrary: fc.constantFrom(...JUNK_SEGMENTS) },
  ];
  if (existing.length)
    options.push({ weight: 4, arbitrary: fc.constantFrom(...existing).map(percentEncode) });
  return fc.oneof(...options);
}

export interface QueryParameter {
  name: string;
  schema: SchemaNode;
}

/** A query string for the documented parameters (valid, hostile, absent, repeated) plus strays. */
export function queryArbitrary(parameters: QueryParameter[], schemas: Schemas): fc.Arbitrary<string> {
  const pairs = parameters.map(({ name, schema }) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<[string, string][]>([]) },
      {
        weight: 4,
        arbitrary: validish(schema, schemas, name).map(
          (v) => [[name, percentEncode(String(v))]] as [string, string][],
        ),
      },
      { weight: 3, arbitrary: shortOddString.map((v) => [[name, percentEncode(v)]] as [string, string][]) },
      { weight: 1, arbitrary: fc.constant([[name, 'q'.repeat(20_000)]] as [string, string][]) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(...JUNK_SEGMENTS).map((v) => [[name, v]] as [string, string][]),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.integer(), fc.integer()).map(
          ([a, b]) =>
            [
              [name, String(a)],
              [name, String(b)],
            ] as [string, string][],
        ),
      },
    ),
  );
  const stray = fc.option(
    fc
      .tuple(fc.string({ maxLength: 10 }), shortOddString)
      .map(([k, v]) => [[percentEncode(k), percentEncode(v)]] as [string, string][]),
    { nil: [] as [string, string][], freq: 4 },
  );
  return fc.tuple(stray, ...pairs).map((lists) => {
    const all = lists.flat();
    return all.length ? `?${all.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
  });
}
