import { HISTORY_RANGES, type HistoryRange } from '@monitor/contracts';

import { t } from '../../core/i18n/i18n';

/** Catalogue key of each history range (keys cannot start with a digit). */
const RANGE_KEYS: Readonly<Record<HistoryRange, string>> = {
  '1h': 'hour',
  '24h': 'day',
  '7d': 'week',
  '30d': 'month',
  '90d': 'quarter',
  '1y': 'year',
  all: 'all',
};

/**
 * A history range as people read it, in the active language: `short` for buttons, `long` for
 * sentences and accessible names, `option` for a select.
 */
export function rangeLabel(range: HistoryRange, form: 'short' | 'long' | 'option'): string {
  const key = RANGE_KEYS[range];
  switch (form) {
    case 'short':
      return t(`incidents.range.short.${key}`);
    case 'long':
      return t(`incidents.range.long.${key}`);
    case 'option':
      return t(`incidents.range.option.${key}`);
  }
}

/** `value` when it is one of the history ranges, else undefined. */
export function parseRange(value: string | null | undefined): HistoryRange | undefined {
  return HISTORY_RANGES.find((range) => range === value);
}
