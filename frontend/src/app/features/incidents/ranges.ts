import { HISTORY_RANGES, type HistoryRange } from '@monitor/contracts';

/** The history ranges as people read them: short for buttons, long for
 * sentences and accessible names, option for a select. */
export const RANGE_LABELS: Readonly<Record<HistoryRange, { short: string; long: string; option: string }>> = {
  '1h': { short: '1 h', long: 'the last hour', option: 'Last hour' },
  '24h': { short: '24 h', long: 'the last 24 hours', option: 'Last 24 hours' },
  '7d': { short: '7 d', long: 'the last 7 days', option: 'Last 7 days' },
  '30d': { short: '30 d', long: 'the last 30 days', option: 'Last 30 days' },
  '90d': { short: '90 d', long: 'the last 90 days', option: 'Last 90 days' },
  '1y': { short: '1 y', long: 'the last year', option: 'Last year' },
  all: { short: 'All', long: 'all time', option: 'Any time' },
};

/** `value` when it is one of the history ranges, else undefined. */
export function parseRange(value: string | null | undefined): HistoryRange | undefined {
  return HISTORY_RANGES.find((range) => range === value);
}
