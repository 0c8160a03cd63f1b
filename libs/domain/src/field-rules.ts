/**
 * The building blocks of the sensor and channel definitions. A rule checks one present value and
 * answers the problem as a phrase without the field name ("must be an integer from 1 to 100"), or
 * null; each reader puts the field name (or its path in a file) in front. Absent values are the
 * readers' business: a PUT keeps the stored value, a file or a backup takes the default.
 */
export interface FieldRule {
  readonly kind: 'text' | 'integer' | 'choice' | 'boolean' | 'object' | 'list' | 'strings';
  /** The problem with a present value, or null when it is acceptable. */
  readonly check: (value: unknown) => string | null;
}

export interface TextRule extends FieldRule {
  readonly maxLength: number;
  /** A blank value (after trimming) is refused. */
  readonly nonEmpty: boolean;
}

export interface IntegerRule extends FieldRule {
  readonly min: number;
  readonly max: number;
  readonly fallback: number;
}

export function textRule(maxLength: number, nonEmpty = false): TextRule {
  return {
    kind: 'text',
    maxLength,
    nonEmpty,
    check: (value) => {
      if (typeof value !== 'string') return 'must be a string';
      if (nonEmpty && value.trim() === '') return 'must not be empty';
      if (value.length > maxLength) return `must be at most ${maxLength} characters`;
      return null;
    },
  };
}

export function integerRule(min: number, max: number, fallback: number): IntegerRule {
  return {
    kind: 'integer',
    min,
    max,
    fallback,
    check: (value) =>
      typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
        ? null
        : `must be an integer from ${min} to ${max}`,
  };
}

export function choiceRule<T extends string>(choices: readonly T[]): FieldRule & { choices: readonly T[] } {
  return {
    kind: 'choice',
    choices,
    check: (value) =>
      typeof value === 'string' && (choices as readonly string[]).includes(value)
        ? null
        : `must be one of ${choices.join(', ')}`,
  };
}

export const booleanRule: FieldRule = {
  kind: 'boolean',
  check: (value) => (typeof value === 'boolean' ? null : 'must be true or false'),
};

export const objectRule: FieldRule = {
  kind: 'object',
  check: (value) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? null : 'must be an object',
};

/** A list of non-empty strings, each at most `maxLength` characters. */
export function stringListRule(maxLength: number): FieldRule & { maxLength: number } {
  return {
    kind: 'strings',
    maxLength,
    check: (value) =>
      Array.isArray(value) &&
      value.every((entry) => typeof entry === 'string' && entry.trim() !== '' && entry.length <= maxLength)
        ? null
        : `must be a list of non-empty strings of at most ${maxLength} characters`,
  };
}

/** A list whose entries the reader checks (channel ids in the API, names in a file, references in a backup). */
export const listRule: FieldRule = {
  kind: 'list',
  check: (value) => (Array.isArray(value) ? null : 'must be a list'),
};
