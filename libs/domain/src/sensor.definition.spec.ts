import { SENSOR_TYPES } from '@monitor/contracts';
import {
  normalizeTags,
  SENSOR_DEFAULTS,
  SENSOR_FIELDS,
  sensorFieldError,
  type SensorField,
  targetRequired,
} from './sensor.definition';

describe('sensor definition', () => {
  describe.each([
    ['interval', 1, 86400, 60],
    ['retries', 1, 100, 3],
    ['reminder_every', 0, 604800, 0],
  ] as const)('%s from %p to %p, default %p', (field, min, max, fallback) => {
    const message = `${field} must be an integer from ${min} to ${max}`;

    it('accepts the bounds and a value between', () => {
      for (const value of [min, max, Math.floor((min + max) / 2)])
        expect(sensorFieldError(field, value)).toBeNull();
    });

    it.each([[min - 1], [max + 1], [min + 0.5], [String(min)], [true], [null], [Number.NaN]])(
      'refuses %p with the spec wording',
      (value) => {
        expect(sensorFieldError(field, value)).toBe(message);
      },
    );

    it('has its default', () => {
      expect(SENSOR_DEFAULTS[field]).toBe(fallback);
      expect(SENSOR_FIELDS[field]).toMatchObject({ min, max, fallback });
    });
  });

  describe.each([
    ['name', 200, true],
    // Required per type (targetRequired): push sensors have none.
    ['target', 2000, false],
    ['group', 200, false],
    ['site', 200, false],
  ] as const)('%s: text of at most %p characters', (field, max, nonEmpty) => {
    it('accepts the longest value and refuses one character more', () => {
      expect(sensorFieldError(field, 'x'.repeat(max))).toBeNull();
      expect(sensorFieldError(field, 'x'.repeat(max + 1))).toBe(`${field} must be at most ${max} characters`);
    });

    it('refuses what is not a string', () => {
      for (const value of [5, ['a'], {}, true])
        expect(sensorFieldError(field, value)).toBe(`${field} must be a string`);
    });

    it(nonEmpty ? 'refuses a blank value' : 'accepts the empty value that clears it', () => {
      expect(sensorFieldError(field, '   ')).toBe(nonEmpty ? `${field} must not be empty` : null);
      expect(sensorFieldError(field, '')).toBe(nonEmpty ? `${field} must not be empty` : null);
    });
  });

  it.each([
    ['http', true],
    ['tcp', true],
    ['snmp', true],
    ['push', false],
  ])('a %s sensor needs a target: %p', (type, required) => {
    expect(targetRequired(type)).toBe(required);
  });

  it('takes the probe catalogue type ids and names them all when refusing', () => {
    for (const type of SENSOR_TYPES) expect(sensorFieldError('type', type)).toBeNull();
    for (const type of ['smtp', 'HTTP', '', 3])
      expect(sensorFieldError('type', type)).toBe(`type must be one of ${SENSOR_TYPES.join(', ')}`);
  });

  it('tags: a list of non-empty strings of at most 100 characters', () => {
    const message = 'tags must be a list of non-empty strings of at most 100 characters';
    expect(sensorFieldError('tags', [])).toBeNull();
    expect(sensorFieldError('tags', ['a', 'x'.repeat(100)])).toBeNull();
    for (const value of ['a', ['x'.repeat(101)], [''], ['  '], [5], { a: 1 }])
      expect(sensorFieldError('tags', value)).toBe(message);
    expect(normalizeTags([' a', 'b ', 'a', 'c'])).toEqual(['a', 'b', 'c']);
  });

  it.each([
    ['enabled', true, 'no', 'enabled must be true or false'],
    ['options', { timeout: 5 }, [1], 'options must be an object'],
    ['channels', [1, 'ops'], 'ops', 'channels must be a list'],
  ] as const)('%s', (field: SensorField, good, bad, message) => {
    expect(sensorFieldError(field, good)).toBeNull();
    expect(sensorFieldError(field, bad)).toBe(message);
    expect(sensorFieldError(field, null)).toBe(message);
  });

  it('has the defaults of the decisions', () => {
    expect(SENSOR_DEFAULTS).toEqual({
      interval: 60,
      retries: 3,
      reminder_every: 0,
      group: '',
      tags: [],
      site: '',
      enabled: true,
      options: {},
      channels: [],
      parent: null,
    });
  });
});
