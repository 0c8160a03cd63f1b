import { activeLanguage } from './i18n';

/**
 * Numbers in the active language's notation (`99.95` in English, `99,95` in German). Reading
 * `activeLanguage` makes a `computed` that formats re-evaluate when the language changes.
 */
export function formatNumber(value: number, maximumFractionDigits = 0): string {
  return new Intl.NumberFormat(activeLanguage(), { maximumFractionDigits }).format(value);
}

/** A percentage given as 0–100 ("99.95 %" or "99,95 %"), with at most `digits` decimals. */
export function formatPercent(percent: number, digits = 2): string {
  return new Intl.NumberFormat(activeLanguage(), { style: 'percent', maximumFractionDigits: digits }).format(
    percent / 100,
  );
}

/** A latency in milliseconds ("123 ms"). */
export function formatMs(milliseconds: number, maximumFractionDigits = 0): string {
  return new Intl.NumberFormat(activeLanguage(), {
    style: 'unit',
    unit: 'millisecond',
    unitDisplay: 'short',
    maximumFractionDigits,
  }).format(milliseconds);
}
