import type { ProbeResult, SparkPoint } from '@monitor/contracts';
import type { SensorState } from '@monitor/domain';
import type { SensorDefinition } from '../sensors/sensor-definition';

/** One sensor's live state: its definition, the state machine's state and what it last saw. */
export interface RuntimeEntry {
  definition: SensorDefinition;
  state: SensorState;
  message: string;
  lastCheckedAt: number | null;
  latencyMs: number | null;
  statusChangedAt: number | null;
  /** Kept in the API's shape, so listing many sensors formats no timestamps. */
  sparkline: SparkPoint[];
  /** The last outcomes, oldest first, as the summary's `recent` (see RECENT_OUTCOMES). */
  recent: string;
  lastResult: ProbeResult | null;
}
