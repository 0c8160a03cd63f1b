import { ValidationError } from 'class-validator';
import { describeValidationErrors } from './validation';

const error = (property: string, constraints?: Record<string, string>, children: ValidationError[] = []) =>
  Object.assign(new ValidationError(), { property, constraints, children });

describe('describeValidationErrors', () => {
  it('names an unknown field', () => {
    expect(
      describeValidationErrors([
        error('colour', { whitelistValidation: 'property colour should not exist' }),
      ]),
    ).toBe('unknown field "colour"');
  });

  it('returns the first failed rule, which names the field', () => {
    expect(
      describeValidationErrors([
        error('interval', { max: 'interval must not be greater than 86400' }),
        error('name', { isString: 'name must be a string' }),
      ]),
    ).toBe('interval must not be greater than 86400');
  });

  it('names nested fields with their path', () => {
    const nested = error('options', undefined, [
      error('timeout', { isInt: 'timeout must be an integer number' }),
    ]);
    expect(describeValidationErrors([nested])).toBe('options.timeout must be an integer number');
    const unknown = error('options', undefined, [
      error('x', { whitelistValidation: 'property x should not exist' }),
    ]);
    expect(describeValidationErrors([unknown])).toBe('unknown field "options.x"');
  });
});
