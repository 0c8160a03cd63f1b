import { numberFormat } from '../../core/i18n/format';
import { activeLanguage } from '../../core/i18n/i18n';

const UNITS = [
  { unit: 'day', seconds: 86_400 },
  { unit: 'hour', seconds: 3_600 },
  { unit: 'minute', seconds: 60 },
  { unit: 'second', seconds: 1 },
] as const;

/**
 * A duration in seconds as its two largest units, for people, in the active language: "45 sec",
 * "12 min, 5 sec", "3 hr, 12 min" ("3 Std., 12 Min." in German). A zero second unit is left out.
 */
export function formatDuration(totalSeconds: number): string {
  const language = activeLanguage();
  let rest = Number.isFinite(totalSeconds) ? Math.max(0, Math.floor(totalSeconds)) : 0;
  const parts: string[] = [];
  for (const { unit, seconds } of UNITS) {
    const count = Math.floor(rest / seconds);
    rest -= count * seconds;
    if (parts.length === 0 && count === 0) continue;
    if (count > 0) parts.push(unitText(language, unit, count));
    if (parts.length === 2 || (parts.length === 1 && count === 0)) break;
  }
  if (parts.length === 0) return unitText(language, 'second', 0);
  return new Intl.ListFormat(language, { style: 'narrow', type: 'unit' }).format(parts);
}

function unitText(language: string, unit: (typeof UNITS)[number]['unit'], count: number): string {
  return numberFormat(language, { style: 'unit', unit, unitDisplay: 'short' }).format(count);
}

/** The same duration as an ISO 8601 duration, for the `datetime` attribute of `<time>`. */
export function isoDuration(totalSeconds: number): string {
  const seconds = Number.isFinite(totalSeconds) ? Math.max(0, Math.floor(totalSeconds)) : 0;
  return `PT${seconds}S`;
}
