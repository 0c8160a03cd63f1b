import { BadRequestException, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '@monitor/domain';
import { GENERIC_SERVER_ERROR, toErrorResponse } from './error-response';

describe('toErrorResponse', () => {
  it.each([
    [new InvalidInputError('interval must be at most 86400'), 400, 'interval must be at most 86400'],
    [new ForbiddenError('only enabled may be patched'), 403, 'only enabled may be patched'],
    [new NotFoundError('no sensor 7'), 404, 'no sensor 7'],
    [
      new ConflictError('the last administrator cannot be deleted'),
      409,
      'the last administrator cannot be deleted',
    ],
    [new BadRequestException('unknown field "x"'), 400, 'unknown field "x"'],
    [new BadRequestException(['a is bad', 'b is bad']), 400, 'a is bad; b is bad'],
    [new NotFoundException('Cannot GET /x'), 404, 'Cannot GET /x'],
    [
      Object.assign(new Error('Request body is too large'), { statusCode: 413 }),
      413,
      'Request body is too large',
    ],
  ])('%p → %p %p', (exception, status, message) => {
    expect(toErrorResponse(exception)).toEqual({ status, message });
  });

  it('hides the cause of an unexpected error from the client and keeps it for the log', () => {
    expect(toErrorResponse(new TypeError('cannot read x of undefined'))).toEqual({
      status: 500,
      message: GENERIC_SERVER_ERROR,
      cause: 'TypeError: cannot read x of undefined',
    });
  });

  it('hides the detail of a 5xx HttpException too', () => {
    expect(toErrorResponse(new ServiceUnavailableException('database unavailable'))).toEqual({
      status: 503,
      message: GENERIC_SERVER_ERROR,
      cause: 'database unavailable',
    });
  });

  it('does not trust a 5xx statusCode on a foreign error', () => {
    expect(toErrorResponse(Object.assign(new Error('x'), { statusCode: 502 })).status).toBe(500);
  });
});
