import type { ProbeResult, SensorType, SparkPoint } from '@monitor/contracts';
import type { SensorState } from '@monitor/domain';

/** What the runtime needs to know of a sensor's stored definition. */
export interface SensorDefinition {
  id: number;
  name: string;
  type: SensorType;
  target: string;
  interval: number;
  retries: number;
  reminderEvery: number;
  group: string;
  tags: string[];
  /** The sensor's site, for labels (GET /metrics); absent on drafts. */
  siteId?: number | null;
  enabled: boolean;
  options: Record<string, unknown>;
  parentId: number | null;
  channelIds: number[];
}

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
