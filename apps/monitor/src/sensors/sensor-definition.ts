import type { SensorType } from '@monitor/contracts';
import type { SensorColumns } from './sensor-rows.sql';

/** What the runtime needs to know of a sensor's stored definition: its columns, id and channels. */
export type SensorDefinition = Omit<SensorColumns, 'type' | 'siteId'> & {
  id: number;
  type: SensorType;
  /** The sensor's site, for labels (GET /metrics); absent on drafts. */
  siteId?: number | null;
  channelIds: number[];
};

/** A stored sensor's definition (or a checked draft's, with id 0, to probe it once). */
export const toDefinition = (s: SensorColumns & { id: number }, channelIds: number[]): SensorDefinition => ({
  id: s.id,
  name: s.name,
  type: s.type as SensorType,
  target: s.target,
  interval: s.interval,
  retries: s.retries,
  reminderEvery: s.reminderEvery,
  group: s.group,
  tags: s.tags,
  siteId: s.siteId,
  enabled: s.enabled,
  options: s.options,
  parentId: s.parentId,
  channelIds,
});
