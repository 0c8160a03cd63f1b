import { formatMs } from '../../core/i18n/format';

/** A latency as people read it: whole milliseconds from 100 ms, else one decimal. */
export function formatLatency(ms: number): string {
  return formatMs(ms, ms >= 100 ? 0 : 1);
}
