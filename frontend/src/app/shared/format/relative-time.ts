import { activeLanguage } from '../../core/i18n/i18n';

const STEPS = [
  { unit: 'day', seconds: 86_400 },
  { unit: 'hour', seconds: 3_600 },
  { unit: 'minute', seconds: 60 },
  { unit: 'second', seconds: 1 },
] as const;

/**
 * How long ago `at` was, seen at `now`, in the largest whole unit and the active language: "now",
 * "12 seconds ago", "3 minutes ago" ("vor 3 Minuten"). Times in the future read as now: the
 * server's clock and the browser's may differ by a little.
 */
export function formatTimeAgo(at: string | number, now: number): string {
  const format = new Intl.RelativeTimeFormat(activeLanguage(), { numeric: 'auto' });
  const seconds = Math.max(0, Math.floor((now - new Date(at).getTime()) / 1000));
  for (const { unit, seconds: size } of STEPS)
    if (seconds >= size) return format.format(-Math.floor(seconds / size), unit);
  return format.format(0, 'second');
}
