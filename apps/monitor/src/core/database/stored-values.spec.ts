import { parseJsonOr } from './stored-values';

describe('parseJsonOr', () => {
  it('reads a JSON text column', () => {
    expect(parseJsonOr('{"a":1}', {})).toEqual({ a: 1 });
    expect(parseJsonOr('["x"]', [])).toEqual(['x']);
  });

  it('falls back when the text is not JSON', () => {
    const fallback = {};
    expect(parseJsonOr('{not json', fallback)).toBe(fallback);
    expect(parseJsonOr('', 'plain')).toBe('plain');
  });
});
