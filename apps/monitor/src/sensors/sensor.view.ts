import type { Sensor, SensorType } from '@monitor/contracts';
import type { ProbeCatalogue } from '@monitor/probes';
import { maskOptions } from './sensor-input';
import type { LiveSensor } from './sensor-scheduling';
import type { SensorEntity } from './sensor.entity';
import { isoOrNull } from '../core/clock/iso';

/** A sensor as the API shows it: stored fields, masked options, and the live runtime values. */
export function toSensorView(
  sensor: SensorEntity,
  channelIds: number[],
  siteName: string,
  runtime: LiveSensor | undefined,
  catalogue: ProbeCatalogue,
): Sensor {
  return {
    id: sensor.id,
    name: sensor.name,
    type: sensor.type as SensorType,
    target: sensor.target,
    interval: sensor.interval,
    retries: sensor.retries,
    reminder_every: sensor.reminderEvery,
    group: sensor.group,
    tags: sensor.tags,
    site: siteName,
    enabled: sensor.enabled,
    options: maskOptions(sensor.type, sensor.options, catalogue),
    channels: channelIds,
    parent_id: sensor.parentId,
    status: runtime?.state.status ?? (sensor.enabled ? sensor.status : 'paused'),
    message: runtime?.message ?? sensor.message,
    sparkline: runtime?.sparkline ?? [],
    last_checked_at: isoOrNull(runtime?.lastCheckedAt ?? sensor.lastCheckedAt),
    latency_ms: runtime?.latencyMs ?? sensor.latencyMs,
    streak: runtime?.state.streak ?? sensor.streak,
    incident_id: runtime?.state.incident?.id ?? null,
    sort_order: sensor.sortOrder,
    sample: sensor.sample,
    managed_by: sensor.managedBy,
  };
}
