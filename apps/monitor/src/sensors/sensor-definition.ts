import type { SensorType } from '@monitor/contracts';

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
