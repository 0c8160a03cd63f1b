import { type Sensor, SENSOR_TYPES, type SensorType, TARGETLESS_TYPES } from '@monitor/contracts';
import {
  booleanRule,
  choiceRule,
  integerRule,
  listRule,
  objectRule,
  stringListRule,
  textRule,
} from './field-rules';
import type { FieldRule } from './field-rules';

/**
 * What a sensor is, once for every reader: the API's DTO, the configuration file, the backup
 * reader, sensor-input and the dashboard's editor. No Node-only code: the dashboard imports it.
 */

export { SENSOR_TYPES, type SensorType };

/** Seconds between probes; also the upper bound of a probe's time-out. */
export const SENSOR_INTERVAL = integerRule(1, 86_400, 60);
/** Consecutive failures before down. */
export const SENSOR_RETRIES = integerRule(1, 100, 3);
/** Seconds between reminders while down; 0 sends none. */
export const SENSOR_REMINDER_EVERY = integerRule(0, 604_800, 0);

export const SENSOR_NAME = textRule(200, true);
/** Required by every type except the targetless ones (see targetRequired), which need it empty. */
export const SENSOR_TARGET = textRule(2000);

/** Whether a sensor of this type needs a target (all but push). */
export const targetRequired = (type: string): boolean =>
  !(TARGETLESS_TYPES as readonly string[]).includes(type);
export const SENSOR_GROUP = textRule(200);
/** The name of the sensor's site; "" for none. */
export const SENSOR_SITE = textRule(200);
export const SENSOR_TAGS = stringListRule(100);

/**
 * The sensor's fields, by the name they have in the API and in a file, with the value a checked
 * sensor holds (typed as the API's sensor): the one list. The configuration file's declaration,
 * the API's draft and the backup's record are this with a few fields changed (see their
 * declarations); SENSOR_FIELDS below gives each field its rule and must name exactly these.
 */
export interface SensorFieldValues extends Pick<
  Sensor,
  | 'name'
  | 'type'
  | 'target'
  | 'interval'
  | 'retries'
  | 'reminder_every'
  | 'group'
  | 'tags'
  | 'site'
  | 'enabled'
  | 'options'
> {
  /** Ids in the API, names in a file, references in a backup. */
  channels: unknown[];
}

/** Every field a reader checks the same way, by the name it has in the API and in a file. */
export const SENSOR_FIELDS = {
  name: SENSOR_NAME,
  type: choiceRule(SENSOR_TYPES),
  target: SENSOR_TARGET,
  interval: SENSOR_INTERVAL,
  retries: SENSOR_RETRIES,
  reminder_every: SENSOR_REMINDER_EVERY,
  group: SENSOR_GROUP,
  tags: SENSOR_TAGS,
  site: SENSOR_SITE,
  enabled: booleanRule,
  options: objectRule,
  /** Ids in the API, names in a file, references in a backup: each reader checks the entries. */
  channels: listRule,
} as const satisfies Record<keyof SensorFieldValues, FieldRule>;

export type SensorField = keyof SensorFieldValues;

/** The value of every field that has one when it is not given. */
export const SENSOR_DEFAULTS = {
  interval: SENSOR_INTERVAL.fallback,
  retries: SENSOR_RETRIES.fallback,
  reminder_every: SENSOR_REMINDER_EVERY.fallback,
  group: '',
  tags: [] as readonly string[],
  site: '',
  enabled: true,
  options: {} as Readonly<Record<string, unknown>>,
  channels: [] as readonly never[],
  parent: null,
} as const;

/** The problem with a present value of a sensor field, as the API answers it ("retries must be …"), or null. */
export function sensorFieldError(field: SensorField, value: unknown): string | null {
  const problem = SENSOR_FIELDS[field].check(value);
  return problem === null ? null : `${field} ${problem}`;
}

/** Tags as stored: trimmed, blanks dropped, each once, in the order given. */
export const normalizeTags = (tags: readonly string[]): string[] => [
  ...new Set(tags.map((tag) => tag.trim()).filter(Boolean)),
];
