import type { PublicPageStatus, PublicSensorStatus, SensorStatus } from '@monitor/contracts';

/** What the public page may know of a sensor's live state. */
export interface LiveSensorState {
  status: SensorStatus;
  enabled: boolean;
  /** Covered by a maintenance window open now. */
  inMaintenance: boolean;
}

/**
 * A sensor's state as visitors see it. A paused sensor stays paused; an active maintenance window
 * excuses everything else, so a planned outage never shows as `down`.
 */
export function publicSensorStatus(state: LiveSensorState): PublicSensorStatus {
  if (!state.enabled || state.status === 'paused') return 'paused';
  if (state.inMaintenance) return 'maintenance';
  switch (state.status) {
    case 'up':
      return 'up';
    case 'down':
      return 'down';
    case 'warn':
      return 'degraded';
    case 'unknown':
      return 'unknown';
  }
}

/** The whole page, worst first: outage > degraded > maintenance > operational. */
export function pageStatus(statuses: Iterable<PublicSensorStatus>): PublicPageStatus {
  const seen = new Set(statuses);
  if (seen.has('down')) return 'outage';
  if (seen.has('degraded')) return 'degraded';
  if (seen.has('maintenance')) return 'maintenance';
  return 'operational';
}
