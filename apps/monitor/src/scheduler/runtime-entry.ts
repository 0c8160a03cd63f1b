import type { ProbeResult, SensorType } from '@monitor/contracts';
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
  enabled: boolean;
  options: Record<string, unknown>;
  parentId: number | null;
  channelIds: number[];
}

export interface SparkPoint {
  ts: number;
  success: boolean;
  latencyMs: number | null;
}

/** One sensor's live state: its definition, the state machine's state and what it last saw. */
export interface RuntimeEntry {
  definition: SensorDefinition;
  state: SensorState;
  message: string;
  lastCheckedAt: number | null;
  latencyMs: number | null;
  statusChangedAt: number | null;
  sparkline: SparkPoint[];
  lastResult: ProbeResult | null;
}
