import type { SensorStatus } from '@monitor/contracts';

/** A sensor status as people read it, with a symbol so that colour is never the only cue. */
export const STATUS_DISPLAY: Readonly<Record<SensorStatus, { label: string; symbol: string }>> = {
  up: { label: 'Up', symbol: '✓' },
  down: { label: 'Down', symbol: '✕' },
  warn: { label: 'Flaky', symbol: '!' },
  unknown: { label: 'Unknown', symbol: '?' },
  paused: { label: 'Paused', symbol: '‖' },
};
