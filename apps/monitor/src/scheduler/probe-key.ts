import { intOption } from '@monitor/probes';
import type { SensorDefinition } from '../sensors/sensor-definition';

/** Fields whose change restarts a sensor's loop; others (name, group…) apply in place. */
export const probeKey = (d: SensorDefinition): string =>
  JSON.stringify([d.type, d.target, d.interval, d.type === 'push' ? pushTiming(d) : d.options, d.enabled]);

/** What times a push sensor: a rotated token keeps its deadline. */
const pushTiming = (d: SensorDefinition) => ({ grace: graceOf(d), timeout: d.options.timeout });

export const graceOf = (d: SensorDefinition): number => intOption(d.options, 'grace', 0, 0, 86_400);
