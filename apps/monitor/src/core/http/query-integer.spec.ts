import type { TransformFnParams } from 'class-transformer';
import { integerRangeMessage, toQueryInteger } from './query-integer';

const transform = (value: unknown): unknown => toQueryInteger({ value } as TransformFnParams);

describe('toQueryInteger', () => {
  it('turns a query-string integer into a number', () => {
    expect(transform('0')).toBe(0);
    expect(transform('40')).toBe(40);
    expect(transform('123456789012345')).toBe(123_456_789_012_345);
  });

  it('leaves anything else as sent, for validation to refuse', () => {
    for (const value of ['-1', '1.5', '1e3', ' 4', '', '1234567890123456', ['1'], 7, undefined])
      expect(transform(value)).toBe(value);
  });
});

describe('integerRangeMessage', () => {
  it('names the field and its bounds', () => {
    expect(integerRangeMessage('limit', { min: 1, max: 1000 })).toEqual({
      message: 'limit must be an integer from 1 to 1000',
    });
  });
});
