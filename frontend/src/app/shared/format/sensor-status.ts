import type { SensorStatus } from '@monitor/contracts';

import { t } from '../../core/i18n/i18n';

const SYMBOLS: Readonly<Record<SensorStatus, string>> = {
  up: '✓',
  down: '✕',
  warn: '!',
  unknown: '?',
  paused: '‖',
};

/** A sensor status as people read it, with a symbol so that colour is never the only cue. */
export function statusDisplay(status: SensorStatus): { label: string; symbol: string } {
  return { label: t(`common.state.${status}`), symbol: SYMBOLS[status] };
}
