import type { AppLogger } from '../core/logging/logger';
import type { SensorDefinition } from '../sensors/sensor-definition';

/** Test fixtures of the scheduler's specs (imported by specs only). */

/** An enabled http sensor `s<id>` of one retry, changed by `overrides`. */
export const testDefinition = (id: number, overrides: Partial<SensorDefinition> = {}): SensorDefinition => ({
  id,
  name: `s${id}`,
  type: 'http',
  target: `http://127.0.0.1/${id}`,
  interval: 60,
  retries: 1,
  reminderEvery: 0,
  group: '',
  tags: [],
  enabled: true,
  options: {},
  parentId: null,
  channelIds: [],
  ...overrides,
});

/** A logger that drops every line. */
export const quietLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
} as unknown as AppLogger;
