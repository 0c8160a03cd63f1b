import { presentedKey } from './api-key-header';

describe('presentedKey', () => {
  it('reads X-API-Key, its first value when repeated', () => {
    expect(presentedKey({ 'x-api-key': 'k1' })).toEqual({ key: 'k1', bearer: undefined });
    expect(presentedKey({ 'x-api-key': ['k1', 'k2'] } as never)).toEqual({ key: 'k1', bearer: undefined });
  });

  it('falls back to a bearer token, in any case of "Bearer", trailing blanks ignored', () => {
    expect(presentedKey({ authorization: 'Bearer abc' })).toEqual({ key: 'abc', bearer: 'abc' });
    expect(presentedKey({ authorization: 'bearer   abc  ' })).toEqual({ key: 'abc', bearer: 'abc' });
  });

  it('prefers X-API-Key over the bearer token but still reports the bearer', () => {
    expect(presentedKey({ 'x-api-key': 'k', authorization: 'Bearer b' })).toEqual({ key: 'k', bearer: 'b' });
  });

  it('presents nothing without either header, or with another Authorization scheme', () => {
    expect(presentedKey({})).toEqual({ key: undefined, bearer: undefined });
    expect(presentedKey({ authorization: 'Basic dXNlcjpwdw==' })).toEqual({
      key: undefined,
      bearer: undefined,
    });
    expect(presentedKey({ authorization: 'Bearer two words' })).toEqual({
      key: undefined,
      bearer: undefined,
    });
  });
});
