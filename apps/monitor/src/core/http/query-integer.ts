import type { TransformFnParams } from 'class-transformer';

/** A query-string integer becomes a number; anything else stays as sent so validation refuses it. */
export const toQueryInteger = ({ value }: TransformFnParams): unknown =>
  typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value;

/** The validation message of an integer query field outside [min, max]. */
export const integerRangeMessage = (
  field: string,
  range: { min: number; max: number },
): { message: string } => ({
  message: `${field} must be an integer from ${range.min} to ${range.max}`,
});
