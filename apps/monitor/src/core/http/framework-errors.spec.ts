import { parserErrorAnswer, requestLineIn } from './framework-errors';
import { requestIdOf } from './request-id';

describe('parser errors', () => {
  it('maps Node parser codes to a status and a sentence', () => {
    const error = (code: string) => Object.assign(new Error(code), { code });
    expect(parserErrorAnswer(error('HPE_HEADER_OVERFLOW'), 10_000)).toEqual({
      status: 431,
      message: 'request headers are too large',
    });
    expect(parserErrorAnswer(error('ERR_HTTP_REQUEST_TIMEOUT'), 10_000)).toEqual({
      status: 408,
      message: 'request headers not received within 10 seconds',
    });
    expect(parserErrorAnswer(error('HPE_INVALID_HEADER_TOKEN'), 10_000)).toEqual({
      status: 400,
      message: 'malformed HTTP request (HPE_INVALID_HEADER_TOKEN)',
    });
  });

  it('reads method and path from a request line, else dashes', () => {
    expect(requestLineIn(Buffer.from('GET /api/x?secret=1 HTTP/1.1\r\nHost: a\r\n'))).toEqual({
      method: 'GET',
      path: '/api/x',
    });
    expect(requestLineIn(Buffer.from('GET /a\u001b[31m HTTP/1.1\r\n'))).toEqual({ method: '-', path: '-' });
    expect(requestLineIn(undefined)).toEqual({ method: '-', path: '-' });
  });
});

describe('requestIdOf', () => {
  it('keeps a sane incoming id and replaces anything else', () => {
    expect(requestIdOf({ headers: { 'x-request-id': 'abc-1.2:3_4' } })).toBe('abc-1.2:3_4');
    for (const bad of ['', 'a b', 'x'.repeat(129), 'é', 'a\nb']) {
      const id = requestIdOf({ headers: { 'x-request-id': bad } });
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(requestIdOf({ headers: {} })).toMatch(/^[0-9a-f-]{36}$/);
  });
});
