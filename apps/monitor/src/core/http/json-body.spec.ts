import * as fc from 'fast-check';
import { illFormedTextIn, jsonNestingExceeds, MAX_JSON_DEPTH } from './json-body';

const nest = (levels: number, open = '[', close = ']') => open.repeat(levels) + close.repeat(levels);

describe('jsonNestingExceeds', () => {
  it('counts arrays and objects alike, up to and past the limit', () => {
    expect(jsonNestingExceeds(nest(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonNestingExceeds(nest(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonNestingExceeds('{"a":'.repeat(65) + '1' + '}'.repeat(65))).toBe(true);
    expect(jsonNestingExceeds('{"a":'.repeat(64) + '1' + '}'.repeat(64))).toBe(false);
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(jsonNestingExceeds(JSON.stringify({ a: '['.repeat(500) }))).toBe(false);
    expect(jsonNestingExceeds(JSON.stringify({ a: '\\"[[[' + '['.repeat(500) }))).toBe(false);
    expect(jsonNestingExceeds(`["\\\\", ${nest(70)}]`)).toBe(true);
  });

  it('siblings do not add up', () => {
    expect(jsonNestingExceeds(`[${Array.from({ length: 1000 }, () => nest(60)).join(',')}]`)).toBe(false);
  });

  it('a million levels are scanned without recursion', () => {
    expect(jsonNestingExceeds(nest(1_000_000))).toBe(true);
  });

  it('agrees with the depth of any value JSON.stringify writes', () => {
    const depth = (v: unknown): number =>
      typeof v === 'object' && v !== null
        ? 1 + Math.max(0, ...Object.values(v as Record<string, unknown>).map(depth))
        : 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 8 }), (value, limit) => {
        expect(jsonNestingExceeds(JSON.stringify(value), limit)).toBe(depth(value) > limit);
      }),
      { seed: 13, numRuns: 500 },
    );
  });
});

describe('illFormedTextIn', () => {
  it('names the path of a lone surrogate in a value', () => {
    expect(illFormedTextIn({ name: 'a\ud800' })).toBe('"name" is not valid Unicode text (lone surrogate)');
    expect(illFormedTextIn({ options: { headers: { 'X-A': '\udc00' } } })).toBe(
      '"options.headers.X-A" is not valid Unicode text (lone surrogate)',
    );
    expect(illFormedTextIn({ tags: ['ok', '\ud83d'] })).toBe(
      '"tags.1" is not valid Unicode text (lone surrogate)',
    );
    expect(illFormedTextIn('\ud800')).toBe('"body" is not valid Unicode text (lone surrogate)');
  });

  it('names where a bad key is', () => {
    expect(illFormedTextIn({ '\ud800': 1 })).toBe(
      'a field name in the body is not valid Unicode text (lone surrogate)',
    );
    expect(illFormedTextIn({ options: { '\udfff': 1 } })).toBe(
      'a field name inside "options" is not valid Unicode text (lone surrogate)',
    );
  });

  it('names a NUL character, which PostgreSQL cannot store, in a value or a key', () => {
    expect(illFormedTextIn({ username: 'a\u0000' })).toBe('"username" contains a NUL character');
    expect(illFormedTextIn({ options: { 'x\u0000': 1 } })).toBe(
      'a field name inside "options" contains a NUL character',
    );
  });

  it('accepts well-formed text, pairs and non-strings', () => {
    expect(illFormedTextIn({ a: 'caf\u00e9 \ud83d\ude00', b: [1, null, true, { c: 'x' }] })).toBeNull();
    expect(illFormedTextIn(null)).toBeNull();
  });

  it('walks deep values with its own stack', () => {
    let value: unknown = '\ud800';
    for (let i = 0; i < 100_000; i++) value = [value];
    expect(illFormedTextIn(value)).toMatch(/not valid Unicode/);
  });
});
